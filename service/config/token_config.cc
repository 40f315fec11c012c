// Reads [[token]] entries. The file holds only each token's SHA-256, so a
// leaked config file does not leak tokens; values of `sha256` are therefore
// never quoted in messages (someone may have pasted the token itself).
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "service/config/catalog_names.h"
#include "service/config/config_sections.h"
#include "service/config/table_uri.h"

namespace deltacommit::service::internal {
namespace {

bool ValidTokenName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
              c == '@';
    if (!ok) return false;
  }
  return true;
}

// 64 hex digits -> lower-case; nullopt otherwise.
std::optional<std::string> LowerHexSha256(const std::string& text) {
  if (text.size() != 64) return std::nullopt;
  std::string out = text;
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return std::nullopt;
    }
  }
  return out;
}

Status RequireKey(TomlSection& section, std::string_view key) {
  if (section.Has(key)) return OkStatus();
  return section.SectionError("missing required key " + std::string(key));
}

Status ReadName(TomlSection& section, const std::vector<TokenConfig>& earlier,
                TokenConfig& out) {
  DC_RETURN_IF_ERROR(RequireKey(section, "name"));
  DC_RETURN_IF_ERROR(section.GetString("name", out.name));
  if (!ValidTokenName(out.name)) {
    return section.Error("name", QuoteForMessage(out.name) +
                                     " is not a token name (1-64 of a-z, A-Z, "
                                     "0-9, '.', '_', '-', '@')");
  }
  for (const TokenConfig& other : earlier) {
    if (other.name == out.name) {
      return section.Error("name",
                           QuoteForMessage(out.name) +
                               " is already used by an earlier [[token]]");
    }
  }
  return OkStatus();
}

Status ReadSha256(TomlSection& section, const std::vector<TokenConfig>& earlier,
                  TokenConfig& out) {
  DC_RETURN_IF_ERROR(RequireKey(section, "sha256"));
  std::string text;
  DC_RETURN_IF_ERROR(section.GetString("sha256", text));
  std::optional<std::string> hex = LowerHexSha256(text);
  if (!hex.has_value()) {
    return section.Error(
        "sha256",
        "must be the token's SHA-256 as 64 hex digits (from "
        "`printf %s TOKEN | sha256sum`); the token itself never goes "
        "in this file");
  }
  for (const TokenConfig& other : earlier) {
    if (other.sha256_hex == *hex) {
      return section.Error("sha256", "is the same as that of token \"" +
                                         other.name +
                                         "\"; each token must be different");
    }
  }
  out.sha256_hex = std::move(*hex);
  return OkStatus();
}

Status ReadTables(TomlSection& section, TokenConfig& out) {
  DC_RETURN_IF_ERROR(RequireKey(section, "tables"));
  std::vector<std::string> tables;
  DC_RETURN_IF_ERROR(section.GetStringArray("tables", tables));
  if (tables.empty()) {
    return section.Error(
        "tables",
        "is empty; list the table URI prefixes the token may use "
        "(e.g. \"s3://bucket/prefix\")");
  }
  for (const std::string& table : tables) {
    StatusOr<TableUri> normalized = NormalizeTableUri(table);
    if (!normalized.ok()) {
      return section.Error("tables", normalized.status().message());
    }
    out.tables.push_back(std::move(normalized->uri));
  }
  return OkStatus();
}

Status ReadActions(TomlSection& section, TokenConfig& out) {
  DC_RETURN_IF_ERROR(RequireKey(section, "actions"));
  std::vector<std::string> actions;
  DC_RETURN_IF_ERROR(section.GetStringArray("actions", actions));
  if (actions.empty()) {
    return section.Error("actions",
                         "is empty; give \"commit\", \"read\", \"manage\" or several");
  }
  for (const std::string& action : actions) {
    if (action == "commit") {
      out.may_commit = true;
    } else if (action == "read") {
      out.may_read = true;
    } else if (action == "manage") {
      out.may_manage = true;
    } else {
      return section.Error("actions", "has " + QuoteForMessage(action) +
                                          "; the actions are \"commit\", \"read\" and \"manage\"");
    }
  }
  return OkStatus();
}

// `catalogs`: optional; without it the token has no Unity Catalog access.
Status ReadCatalogs(TomlSection& section, TokenConfig& out) {
  if (!section.Has("catalogs")) return OkStatus();
  DC_RETURN_IF_ERROR(section.GetStringArray("catalogs", out.catalogs));
  for (const std::string& prefix : out.catalogs) {
    Status valid = ValidateCatalogPrefix(prefix);
    if (!valid.ok()) return section.Error("catalogs", valid.message());
  }
  return OkStatus();
}

// One [[token]]; `earlier` are the ones before it in the file.
StatusOr<TokenConfig> ReadToken(TomlSection& section,
                                const std::vector<TokenConfig>& earlier) {
  section.DeclareKeys({"name", "sha256", "tables", "actions", "catalogs"});
  DC_RETURN_IF_ERROR(section.Finish());
  TokenConfig token;
  DC_RETURN_IF_ERROR(ReadName(section, earlier, token));
  DC_RETURN_IF_ERROR(ReadSha256(section, earlier, token));
  DC_RETURN_IF_ERROR(ReadTables(section, token));
  DC_RETURN_IF_ERROR(ReadActions(section, token));
  DC_RETURN_IF_ERROR(ReadCatalogs(section, token));
  return token;
}

}  // namespace

Status ReadTokens(TomlSection& root, std::vector<TokenConfig>& out) {
  DC_ASSIGN_OR_RETURN(std::vector<TomlSection> sections,
                      root.GetTableArray("token"));
  for (TomlSection& section : sections) {
    DC_ASSIGN_OR_RETURN(TokenConfig token, ReadToken(section, out));
    out.push_back(std::move(token));
  }
  return OkStatus();
}

}  // namespace deltacommit::service::internal
