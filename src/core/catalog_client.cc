#include "deltacommit/catalog_client.h"

#include <vector>

namespace deltacommit {

StatusOr<CatalogTableName> ParseCatalogTableName(std::string_view text) {
  std::string_view name = text;
  if (name.starts_with("uc://")) name.remove_prefix(5);
  auto bad = [&](const std::string& why) {
    return InvalidArgumentError("table name \"" + std::string(text.substr(0, 256)) + "\": " + why +
                                " (a catalog table is uc://<catalog>.<schema>.<table>)");
  };
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return bad("holds a control character");
    if (c == '/' || c == '%' || c == '\\') {
      return bad(std::string("holds '") + c + "', which a catalog name never holds");
    }
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    parts.emplace_back(name.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() != 3) {
    return bad("has " + std::to_string(parts.size()) + " part" + (parts.size() == 1 ? "" : "s") +
               ", not 3");
  }
  for (const std::string& part : parts) {
    if (part.empty()) return bad("has an empty part");
  }
  return CatalogTableName{parts[0], parts[1], parts[2]};
}

}  // namespace deltacommit
