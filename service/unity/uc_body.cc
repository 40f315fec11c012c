#include "service/unity/uc_body.h"

#include <limits>
#include <utility>

#include "deltacommit/service_wire/json_body.h"

namespace deltacommit::service::unity {
namespace {

using nlohmann::json;
using service_wire::WrongType;

std::string Name(std::string_view where, std::string_view field) {
  return where.empty() ? std::string(field) : std::string(where) + "." + std::string(field);
}

const json* Member(const json& object, std::string_view field) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

Status Required(std::string_view name) {
  return InvalidArgumentError("field \"" + std::string(name) + "\" is required");
}

StatusOr<int64_t> ReadInt(const json& value, std::string_view name) {
  if (value.is_number_unsigned() &&
      value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return InvalidArgumentError("field \"" + std::string(name) + "\" is too large");
  }
  if (!value.is_number_integer()) return WrongType(name, "an integer", value);
  return value.get<int64_t>();
}

}  // namespace

StatusOr<UcBody> UcBody::Parse(std::string_view body) {
  DC_ASSIGN_OR_RETURN(json parsed,
                      service_wire::ParseJsonObject(body, kMaxDepth, "a Unity Catalog request"));
  return UcBody(std::move(parsed));
}

const json* UcBody::Find(std::string_view field) const { return Member(json_, field); }

StatusOr<std::string> UcBody::RequiredString(std::string_view field) const {
  return unity::RequiredString(json_, "", field);
}

StatusOr<int64_t> UcBody::RequiredInt(std::string_view field) const {
  return unity::RequiredInt(json_, "", field);
}

StatusOr<const json*> UcBody::RequiredObject(std::string_view field) const {
  const json* value = Find(field);
  if (value == nullptr) return Required(field);
  if (!value->is_object()) return WrongType(field, "an object", *value);
  return value;
}

StatusOr<std::optional<std::string>> UcBody::OptionalString(std::string_view field) const {
  const json* value = Find(field);
  if (value == nullptr) return std::optional<std::string>();
  if (!value->is_string()) return WrongType(field, "a string", *value);
  return std::optional<std::string>(value->get<std::string>());
}

StatusOr<std::optional<int64_t>> UcBody::OptionalInt(std::string_view field) const {
  const json* value = Find(field);
  if (value == nullptr) return std::optional<int64_t>();
  DC_ASSIGN_OR_RETURN(int64_t number, ReadInt(*value, field));
  return std::optional<int64_t>(number);
}

StatusOr<PropertyMap> UcBody::Properties(std::string_view field) const {
  PropertyMap properties;
  const json* value = Find(field);
  if (value == nullptr) return properties;
  if (!value->is_object()) return WrongType(field, "an object of strings", *value);
  for (const auto& [key, item] : value->items()) {
    if (!item.is_string()) return WrongType(Name(field, key), "a string", item);
    properties.emplace(key, item.get<std::string>());
  }
  return properties;
}

StatusOr<int64_t> RequiredInt(const json& object, std::string_view where, std::string_view field) {
  const json* value = Member(object, field);
  if (value == nullptr) return Required(Name(where, field));
  return ReadInt(*value, Name(where, field));
}

StatusOr<std::string> RequiredString(const json& object, std::string_view where,
                                     std::string_view field) {
  const json* value = Member(object, field);
  if (value == nullptr) return Required(Name(where, field));
  if (!value->is_string()) return WrongType(Name(where, field), "a string", *value);
  return value->get<std::string>();
}

std::optional<Status> FirstError(std::initializer_list<Status> statuses) {
  for (const Status& status : statuses) {
    if (!status.ok()) return status;
  }
  return std::nullopt;
}

}  // namespace deltacommit::service::unity
