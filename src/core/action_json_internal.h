// Private to deltacommit_core: the JSON value layer under ActionParser.
//
// ValueReader decodes one typed value of an action line (a string, an int64,
// a map, a value's raw text, ...) out of a simdjson On Demand document and
// turns every failure into an InvalidArgument naming the field. It is
// implemented in action_json.cc; the per-action field tables and
// ActionParser that drive it live in action_json_parse.cc.
//
// Thread-safety: a ValueReader serves one line on one thread.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit::internal {

namespace od = simdjson::ondemand;
using OperationParameters = std::vector<std::pair<std::string, std::string>>;

// Where a value sits in the action, e.g. "add.deletionVector.offset" or
// "protocol.readerFeatures[2]". A chain of stack frames: rendered to a string
// only when an error names it, so the happy path never builds it.
struct FieldPath {
  const FieldPath* parent = nullptr;
  std::string_view name;
  int64_t index = -1;  // >= 0 for an array element

  std::string ToString() const;
};

// InvalidArgument "<path>: <problem>".
Status FieldError(const FieldPath& path, std::string_view problem);

// "object", "string", ... as used in "expected X, got Y".
std::string_view TypeName(od::json_type type);

// Reads typed values out of one line's document. Owns nothing: the document,
// the padded line and the validator belong to ActionParser::Impl and outlive
// the reader. Every string_view it returns points into the line or into the
// parser's buffers, valid until the next line is parsed.
class ValueReader {
 public:
  // REQUIRES: `line` is the start of the text `doc` iterates, and the text
  // is followed by simdjson::SIMDJSON_PADDING readable bytes.
  ValueReader(od::document& doc, const char* line,
              simdjson::dom::parser& validator)
      : doc_(doc), line_(line), validator_(validator) {}

  // "malformed JSON at byte N: <why>" (N is 0-based within the line) when
  // simdjson can say where it stopped, else "malformed JSON: <why>".
  Status Malformed(simdjson::error_code error);
  Status MalformedAt(const char* where, std::string_view why) const;

  Status GetObject(od::value& v, const FieldPath& path, od::object* out);
  // The value's JSON text exactly as written (trailing blanks trimmed),
  // checked to be valid JSON.
  StatusOr<std::string_view> ReadRaw(od::value& v);

  // Each returns InvalidArgument naming `path` for a wrong type, a
  // fractional or out-of-range integer, or malformed JSON.
  Status Read(od::value& v, const FieldPath& path, std::string* out);
  Status Read(od::value& v, const FieldPath& path, int64_t* out);
  Status Read(od::value& v, const FieldPath& path, int32_t* out);
  Status Read(od::value& v, const FieldPath& path, bool* out);
  Status Read(od::value& v, const FieldPath& path,
              std::vector<std::string>* out);
  Status Read(od::value& v, const FieldPath& path, StringMap* out);
  Status Read(od::value& v, const FieldPath& path, NullableStringMap* out);
  // Values kept as raw JSON text, in order (commitInfo.operationParameters).
  Status Read(od::value& v, const FieldPath& path, OperationParameters* out);
  // These two walk field tables; defined in action_json_parse.cc.
  Status Read(od::value& v, const FieldPath& path, Format* out);
  Status Read(od::value& v, const FieldPath& path,
              DeletionVectorDescriptor* out);

  // JSON null reads as nullopt: absent and null mean the same to Delta
  // readers, and some writers emit explicit nulls.
  template <typename T>
  Status Read(od::value& v, const FieldPath& path, std::optional<T>* out) {
    bool is_null = false;
    if (auto error = v.is_null().get(is_null)) return Malformed(error);
    if (is_null) {
      out->reset();
      return OkStatus();
    }
    return Read(v, path, &out->emplace());
  }

 private:
  // The error for a getter that failed: a type mismatch if the value has
  // another type, else the JSON itself is broken.
  Status TypeError(od::value& v, const FieldPath& path, od::json_type expected,
                   std::string_view expected_name, simdjson::error_code error);
  Status IntegerError(od::value& v, const FieldPath& path,
                      simdjson::error_code error);
  template <typename Map>
  Status ReadMap(od::value& v, const FieldPath& path, Map* out);

  od::document& doc_;
  const char* line_;
  simdjson::dom::parser& validator_;
};

}  // namespace deltacommit::internal
