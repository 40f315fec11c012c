#include "deltacommit/core/last_checkpoint.h"

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

using Json = nlohmann::json;

Status Invalid(const std::string& what) {
  return InvalidArgumentError(LastCheckpointPath() + ": " + what);
}

// The integer `j[name]` in min..max; nullopt when absent or null.
StatusOr<std::optional<int64_t>> OptionalInt(const Json& j, const char* name, int64_t min,
                                             int64_t max) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  const bool fits = it->is_number_integer() &&
                    (!it->is_number_unsigned() ||
                     it->get<uint64_t>() <= static_cast<uint64_t>(max));
  if (fits) {
    const auto value = it->get<int64_t>();
    if (value >= min && value <= max) return std::optional<int64_t>(value);
  }
  return Invalid("\"" + std::string(name) + "\" must be an integer from " + std::to_string(min) +
                 " to " + std::to_string(max) + ", got " + it->dump());
}

StatusOr<int64_t> RequiredInt(const Json& j, const char* name) {
  DC_ASSIGN_OR_RETURN(std::optional<int64_t> value,
                      OptionalInt(j, name, 0, std::numeric_limits<int64_t>::max()));
  if (!value) return Invalid("\"" + std::string(name) + "\" is missing");
  return *value;
}

// Parses `text` into a JSON object whose top-level keys are unique.
StatusOr<Json> ParseObject(std::string_view text) {
  std::set<std::string> keys;
  std::string duplicate;
  auto on_event = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1 && parsed.is_string() &&
        !keys.insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  Json j = Json::parse(text.begin(), text.end(), on_event, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid("not valid JSON");
  if (!j.is_object()) return Invalid("not a JSON object");
  if (!duplicate.empty()) return Invalid("key \"" + duplicate + "\" appears more than once");
  return j;
}

}  // namespace

StatusOr<LastCheckpoint> ParseLastCheckpoint(std::string_view text) {
  DC_ASSIGN_OR_RETURN(Json j, ParseObject(text));
  constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
  LastCheckpoint hint;
  DC_ASSIGN_OR_RETURN(hint.version, RequiredInt(j, "version"));
  DC_ASSIGN_OR_RETURN(hint.size, RequiredInt(j, "size"));
  DC_ASSIGN_OR_RETURN(std::optional<int64_t> parts,
                      OptionalInt(j, "parts", 1, std::numeric_limits<int32_t>::max()));
  if (parts) hint.parts = static_cast<int32_t>(*parts);
  DC_ASSIGN_OR_RETURN(hint.size_in_bytes, OptionalInt(j, "sizeInBytes", 0, kMaxInt64));
  DC_ASSIGN_OR_RETURN(hint.num_of_add_files, OptionalInt(j, "numOfAddFiles", 0, kMaxInt64));
  return hint;
}

}  // namespace deltacommit
