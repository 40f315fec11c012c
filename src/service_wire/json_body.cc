#include "deltacommit/service_wire/json_body.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "deltacommit/core/message_quote.h"

namespace deltacommit::service_wire {
namespace {

using nlohmann::json;

// Repeated keys (which nlohmann would silently resolve to the last one) and
// nesting beyond max_depth, seen while parsing.
struct ShapeCheck {
  int max_depth = 0;
  std::vector<std::set<std::string>> keys;  // one set per open object
  std::optional<std::string> repeated;
  bool too_deep = false;

  bool Visit(int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_depth) {
      too_deep = true;
      return false;  // not stored
    }
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second && !repeated) {
      repeated = parsed.get<std::string>();
    }
    return true;
  }
};

}  // namespace

std::string JsonTypeName(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number_float()) return "a fraction";
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    default:
      return "a number";
  }
}

Status WrongType(std::string_view field, std::string_view wanted, const json& value) {
  return InvalidArgumentError("field \"" + std::string(field) + "\" must be " +
                              std::string(wanted) + ", not " + JsonTypeName(value));
}

StatusOr<json> ParseJsonObject(std::string_view body, int max_depth, std::string_view what) {
  ShapeCheck shape;
  shape.max_depth = max_depth;
  json parsed;
  try {
    parsed = json::parse(body, [&shape](int depth, json::parse_event_t event, json& value) {
      return shape.Visit(depth, event, value);
    });
  } catch (const json::parse_error& e) {
    // e.what() quotes the text around the error, which may be a secret.
    // The parser counts bytes from 1, and one past the end when the body
    // stops short.
    const std::string where =
        e.byte > body.size()
            ? "it ends early, after " + std::to_string(body.size()) + " bytes"
            : "error at byte " + std::to_string(e.byte) + " of " + std::to_string(body.size());
    return InvalidArgumentError("the body is not valid JSON (" + where +
                                "); send one JSON object (Content-Type: application/json)");
  } catch (const json::out_of_range&) {
    // A number beyond what a double holds (e.g. 6e424242); found by the
    // commit_body fuzzer. No field of these APIs takes such a number.
    return InvalidArgumentError(
        "the body holds a number out of range; send one JSON object "
        "(Content-Type: application/json)");
  }
  if (shape.too_deep) {
    return InvalidArgumentError("the body nests objects or arrays more than " +
                                std::to_string(max_depth) + " deep; no field of " +
                                std::string(what) + " does");
  }
  if (shape.repeated) {
    return InvalidArgumentError("field " + QuoteForMessage(*shape.repeated, 64) +
                                " appears more than once");
  }
  if (!parsed.is_object()) {
    return InvalidArgumentError("the body must be a JSON object, not " + JsonTypeName(parsed));
  }
  return parsed;
}

}  // namespace deltacommit::service_wire
