// TomlSection: strict, typed reading of one TOML table of the service
// config. Every key the code asks for is "known"; Finish() refuses any other
// key, so a typo is an error rather than a silently ignored setting. Every
// error names the file, line, column and dotted key ("server.listen",
// "token[1].sha256").
//
// Internal to service/config. Thread-safety: one thread per instance; the
// table must outlive it.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::service::internal {

class TomlSection {
 public:
  // `path`: the dotted name of this table in messages ("" for the root).
  // `heading`: how the file spells it ("[server]", "[[token]]"; "" for the
  // root). `file`: the config's name in messages; must outlive the section.
  TomlSection(const toml::table& table, std::string path, std::string heading,
              const std::string& file)
      : table_(table),
        path_(std::move(path)),
        heading_(std::move(heading)),
        file_(file) {}

  // Each reads `key` into `out` if present and leaves `out` (the default)
  // alone if absent. kInvalidArgument for a wrong type or range.
  Status GetString(std::string_view key, std::string& out);
  Status GetBool(std::string_view key, bool& out);
  Status GetInt(std::string_view key, int64_t min, int64_t max, int64_t& out);
  Status GetInt(std::string_view key, int min, int max, int& out);
  Status GetStringArray(std::string_view key, std::vector<std::string>& out);
  // The sub-table `key` ([name]); nullopt if absent.
  StatusOr<std::optional<TomlSection>> GetTable(std::string_view key);
  // The array of tables `key` ([[name]]); empty if absent.
  StatusOr<std::vector<TomlSection>> GetTableArray(std::string_view key);

  bool Has(std::string_view key) const { return table_.contains(key); }

  // Marks keys known before they are read, so that Finish() can run first
  // and a misspelt required key is reported as unknown, not as missing.
  void DeclareKeys(std::initializer_list<std::string_view> keys);

  // "<file>:<line>:<col>: <path>.<key>: <why>", at `key`'s value if it is
  // present, else at this table.
  Status Error(std::string_view key, std::string_view why) const;
  // The same, at this table, for the table as a whole.
  Status SectionError(std::string_view why) const;

  // kInvalidArgument naming the first key present that no Get asked for,
  // and listing the known ones.
  Status Finish() const;

  const std::string& path() const { return path_; }
  const std::string& heading() const { return heading_; }
  const std::string& file() const { return file_; }

 private:
  // The node at `key` (nullptr if absent); marks `key` known.
  const toml::node* Find(std::string_view key);
  std::string KeyPath(std::string_view key) const;
  std::string Where(const toml::source_region& source) const;
  Status WrongType(std::string_view key, const toml::node& node,
                   std::string_view wanted) const;

  const toml::table& table_;
  std::string path_;
  std::string heading_;
  const std::string& file_;
  std::vector<std::string> known_;
};

// The text as a TOML table; kInvalidArgument "<file>:<line>:<col>: TOML
// syntax error: ..." otherwise.
StatusOr<toml::table> ParseToml(std::string_view text, const std::string& file);

}  // namespace deltacommit::service::internal
