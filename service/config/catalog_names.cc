#include "service/config/catalog_names.h"

#include <string>

#include "deltacommit/core/message_quote.h"

namespace deltacommit::service {
namespace {

constexpr size_t kMaxNameBytes = 255;

bool NameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool LowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

std::string Describe(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x21 && byte < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0xf];
}

}  // namespace

Status ValidateCatalogName(std::string_view what, std::string_view name) {
  if (name.empty()) return InvalidArgumentError(std::string(what) + " name is empty");
  if (name.size() > kMaxNameBytes) {
    return InvalidArgumentError(std::string(what) + " name is " + std::to_string(name.size()) +
                                " bytes, more than " + std::to_string(kMaxNameBytes));
  }
  for (char c : name) {
    if (!NameCharacter(c)) {
      return InvalidArgumentError(std::string(what) + " name " + QuoteForMessage(name) + " has " +
                                  Describe(c) + ": names are ASCII letters, digits, '_' and '-'");
    }
  }
  return OkStatus();
}

Status ValidateUuid(std::string_view what, std::string_view text) {
  bool ok = text.size() == 36;
  for (size_t i = 0; ok && i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    ok = dash ? text[i] == '-' : LowerHex(text[i]);
  }
  if (ok) return OkStatus();
  return InvalidArgumentError(std::string(what) + " " + QuoteForMessage(text) +
                              " is not a UUID (8-4-4-4-12 lower-case hex digits)");
}

bool CatalogPrefixCovers(std::string_view prefix, std::string_view full_name) {
  if (prefix == "*") return true;
  if (!full_name.starts_with(prefix)) return false;
  return full_name.size() == prefix.size() || full_name[prefix.size()] == '.';
}

Status ValidateCatalogPrefix(std::string_view prefix) {
  if (prefix == "*") return OkStatus();
  static constexpr std::string_view kParts[] = {"catalog", "schema", "table"};
  size_t part = 0;
  for (size_t start = 0;; ++part) {
    const size_t dot = prefix.find('.', start);
    if (part == 3) {
      return InvalidArgumentError(QuoteForMessage(prefix) +
                                  " has more than three names (catalog.schema.table)");
    }
    DC_RETURN_IF_ERROR(ValidateCatalogName(kParts[part], prefix.substr(start, dot - start)));
    if (dot == std::string_view::npos) return OkStatus();
    start = dot + 1;
  }
}

}  // namespace deltacommit::service
