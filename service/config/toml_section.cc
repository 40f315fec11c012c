#include "service/config/toml_section.h"

#include <algorithm>
#include <utility>

namespace deltacommit::service::internal {
namespace {

std::string_view TypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date/time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

}  // namespace

std::string TomlSection::Where(const toml::source_region& source) const {
  std::string where = file_;
  if (source.begin.line > 0) {
    where += ":" + std::to_string(source.begin.line) + ":" +
             std::to_string(source.begin.column);
  }
  return where;
}

std::string TomlSection::KeyPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Status TomlSection::Error(std::string_view key, std::string_view why) const {
  const toml::node* node = table_.get(key);
  const toml::source_region& source =
      node != nullptr ? node->source() : table_.source();
  return InvalidArgumentError(Where(source) + ": " + KeyPath(key) + ": " +
                              std::string(why));
}

Status TomlSection::SectionError(std::string_view why) const {
  std::string name = path_.empty() ? "the file" : path_;
  return InvalidArgumentError(Where(table_.source()) + ": " + name + ": " +
                              std::string(why));
}

Status TomlSection::WrongType(std::string_view key, const toml::node& node,
                              std::string_view wanted) const {
  return Error(key, "must be " + std::string(wanted) + ", not " +
                        std::string(TypeName(node.type())));
}

void TomlSection::DeclareKeys(std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      known_.emplace_back(key);
    }
  }
}

const toml::node* TomlSection::Find(std::string_view key) {
  DeclareKeys({key});
  return table_.get(key);
}

Status TomlSection::GetString(std::string_view key, std::string& out) {
  const toml::node* node = Find(key);
  if (node == nullptr) return OkStatus();
  if (!node->is_string()) return WrongType(key, *node, "a string");
  out = node->as_string()->get();
  return OkStatus();
}

Status TomlSection::GetBool(std::string_view key, bool& out) {
  const toml::node* node = Find(key);
  if (node == nullptr) return OkStatus();
  if (!node->is_boolean()) {
    return WrongType(key, *node, "a boolean (true or false)");
  }
  out = node->as_boolean()->get();
  return OkStatus();
}

Status TomlSection::GetInt(std::string_view key, int64_t min, int64_t max,
                           int64_t& out) {
  const toml::node* node = Find(key);
  if (node == nullptr) return OkStatus();
  if (!node->is_integer()) return WrongType(key, *node, "an integer");
  int64_t value = node->as_integer()->get();
  if (value < min || value > max) {
    return Error(key, "is " + std::to_string(value) + "; it must be between " +
                          std::to_string(min) + " and " + std::to_string(max));
  }
  out = value;
  return OkStatus();
}

Status TomlSection::GetInt(std::string_view key, int min, int max, int& out) {
  int64_t value = out;
  DC_RETURN_IF_ERROR(GetInt(key, int64_t{min}, int64_t{max}, value));
  out = static_cast<int>(value);  // within [min, max]
  return OkStatus();
}

Status TomlSection::GetStringArray(std::string_view key,
                                   std::vector<std::string>& out) {
  const toml::node* node = Find(key);
  if (node == nullptr) return OkStatus();
  if (!node->is_array()) return WrongType(key, *node, "an array of strings");
  std::vector<std::string> values;
  for (const toml::node& item : *node->as_array()) {
    if (!item.is_string()) {
      return InvalidArgumentError(Where(item.source()) + ": " + KeyPath(key) +
                                  ": must be an array of strings, but has " +
                                  std::string(TypeName(item.type())));
    }
    values.push_back(item.as_string()->get());
  }
  out = std::move(values);
  return OkStatus();
}

StatusOr<std::optional<TomlSection>> TomlSection::GetTable(
    std::string_view key) {
  const toml::node* node = Find(key);
  if (node == nullptr) return std::optional<TomlSection>();
  if (!node->is_table()) {
    return WrongType(key, *node, "a table ([" + KeyPath(key) + "])");
  }
  return std::optional<TomlSection>(TomlSection(
      *node->as_table(), KeyPath(key), "[" + KeyPath(key) + "]", file_));
}

StatusOr<std::vector<TomlSection>> TomlSection::GetTableArray(
    std::string_view key) {
  const toml::node* node = Find(key);
  std::vector<TomlSection> sections;
  if (node == nullptr) return sections;
  const std::string wanted = "an array of tables ([[" + KeyPath(key) + "]])";
  if (!node->is_array_of_tables()) return WrongType(key, *node, wanted);
  const toml::array& array = *node->as_array();
  for (size_t i = 0; i < array.size(); ++i) {
    sections.emplace_back(*array[i].as_table(),
                          KeyPath(key) + "[" + std::to_string(i) + "]",
                          "[[" + KeyPath(key) + "]]", file_);
  }
  return sections;
}

Status TomlSection::Finish() const {
  for (const auto& [key, node] : table_) {
    if (std::find(known_.begin(), known_.end(), key.str()) != known_.end()) {
      continue;
    }
    std::string what =
        path_.empty() ? "unknown section or key " : "unknown key ";
    std::string where = heading_.empty() ? "the file" : heading_;
    return InvalidArgumentError(Where(key.source()) + ": " + what +
                                KeyPath(key.str()) + " (" + where +
                                " takes: " + Join(known_) + ")");
  }
  return OkStatus();
}

StatusOr<toml::table> ParseToml(std::string_view text,
                                const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    const toml::source_position& at = error.source().begin;
    return InvalidArgumentError(
        file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
        ": TOML syntax error: " + std::string(error.description()));
  }
}

}  // namespace deltacommit::service::internal
