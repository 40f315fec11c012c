// The fields of a Unity Catalog request body, read with one set of rules:
// the body is parsed strictly (service_wire/json_body.h: one object, no
// repeated key, limited nesting), a field of the wrong type is refused
// naming it, and fields this service does not know are ignored, as Unity
// Catalog's own server ignores them (clients of newer versions send more).
//
// Thread-safety: values.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"

namespace deltacommit::service::unity {

class UcBody {
 public:
  // Deep enough for a table schema of nested types; deeper bodies are
  // refused.
  static constexpr int kMaxDepth = 64;

  // kInvalidArgument as ParseJsonObject answers.
  static StatusOr<UcBody> Parse(std::string_view body);
  explicit UcBody(nlohmann::json json) : json_(std::move(json)) {}

  // kInvalidArgument "field \"name\" is required" when absent or null.
  StatusOr<std::string> RequiredString(std::string_view field) const;
  StatusOr<int64_t> RequiredInt(std::string_view field) const;
  StatusOr<const nlohmann::json*> RequiredObject(std::string_view field) const;
  // nullopt when absent or null.
  StatusOr<std::optional<std::string>> OptionalString(std::string_view field) const;
  StatusOr<std::optional<int64_t>> OptionalInt(std::string_view field) const;
  // An object of string values; empty when absent or null.
  StatusOr<PropertyMap> Properties(std::string_view field) const;
  // The value of `field`, or null when absent.
  const nlohmann::json* Find(std::string_view field) const;

  const nlohmann::json& value() const { return json_; }

 private:
  nlohmann::json json_;
};

// The same reads on a nested object (`where` names it in messages, e.g.
// "commit_info").
StatusOr<int64_t> RequiredInt(const nlohmann::json& object, std::string_view where,
                              std::string_view field);
StatusOr<std::string> RequiredString(const nlohmann::json& object, std::string_view where,
                                     std::string_view field);

// The first error of `statuses` (each a field read of a body), if any.
std::optional<Status> FirstError(std::initializer_list<Status> statuses);

}  // namespace deltacommit::service::unity
