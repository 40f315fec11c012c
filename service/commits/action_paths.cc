#include "service/commits/action_paths.h"

#include <string>
#include <variant>

#include "deltacommit/percent_encoding.h"

namespace deltacommit::service {
namespace {

bool HasControlCharacter(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

Status Refuse(std::string_view path, std::string_view rule) {
  return InvalidArgumentError("path \"" + std::string(path) + "\" " + std::string(rule));
}

// `relative` is what follows the table root; `path` is the whole, for
// messages.
Status CheckRelative(std::string_view path, std::string_view relative) {
  StatusOr<std::string> decoded = PercentDecode(relative);
  if (!decoded.ok()) return Refuse(path, "has a '%' that is not followed by two hex digits");
  if (decoded->empty()) return Refuse(path, "names no file");
  if (HasControlCharacter(*decoded)) return Refuse(path, "contains a control character");
  if (decoded->front() == '/') {
    return Refuse(path, "starts with '/': a path must be relative to the table root "
                        "or an s3:// URI under it");
  }
  size_t start = 0;
  while (start <= decoded->size()) {
    size_t end = decoded->find('/', start);
    if (end == std::string::npos) end = decoded->size();
    const std::string_view segment = std::string_view(*decoded).substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      return Refuse(path, "has an empty, \".\" or \"..\" segment: it must stay inside the table");
    }
    start = end + 1;
  }
  return OkStatus();
}

// "s3a://b/p" -> "s3://b/p"; other schemes unchanged.
std::string NormaliseScheme(std::string_view uri) {
  for (std::string_view alias : {"s3a://", "s3n://"}) {
    if (uri.starts_with(alias)) return "s3://" + std::string(uri.substr(alias.size()));
  }
  return std::string(uri);
}

}  // namespace

Status CheckPathInTable(std::string_view table, std::string_view path) {
  if (path.empty()) return InvalidArgumentError("an action has an empty path");
  if (HasControlCharacter(path)) return Refuse(path, "contains a control character");
  // A ':' before the first '/' is a URI scheme: relative paths are
  // URI-encoded, so theirs would be written %3A.
  const size_t colon = path.find(':');
  if (colon == std::string_view::npos || colon > path.find('/')) {
    return CheckRelative(path, path);
  }
  const std::string absolute = NormaliseScheme(path);
  const std::string root = NormaliseScheme(table) + "/";
  if (!absolute.starts_with(root)) {
    return Refuse(path, "is outside the table " + std::string(table) +
                            ": absolute paths must start with " + root);
  }
  return CheckRelative(path, std::string_view(absolute).substr(root.size()));
}

Status CheckActionPaths(std::string_view table, const Action& action) {
  if (const auto* add = std::get_if<AddFile>(&action)) {
    DC_RETURN_IF_ERROR(CheckPathInTable(table, add->path));
    if (add->deletion_vector && add->deletion_vector->storage_type == "p") {
      return CheckPathInTable(table, add->deletion_vector->path_or_inline_dv);
    }
    return OkStatus();
  }
  if (const auto* remove = std::get_if<RemoveFile>(&action)) {
    DC_RETURN_IF_ERROR(CheckPathInTable(table, remove->path));
    if (remove->deletion_vector && remove->deletion_vector->storage_type == "p") {
      return CheckPathInTable(table, remove->deletion_vector->path_or_inline_dv);
    }
    return OkStatus();
  }
  if (const auto* cdc = std::get_if<AddCdcFile>(&action)) {
    return CheckPathInTable(table, cdc->path);
  }
  return OkStatus();
}

}  // namespace deltacommit::service
