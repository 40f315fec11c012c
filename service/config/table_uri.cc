#include "service/config/table_uri.h"

#include <cctype>
#include <optional>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "deltacommit/object_store.h"

namespace deltacommit::service {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

std::optional<int> HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

Status BadUri(std::string_view uri, std::string_view why) {
  return InvalidArgumentError("table URI " + QuoteForMessage(uri) + " " +
                              std::string(why));
}

// Escapes that some layer (an HTTP router, a proxy, a store that decodes
// keys) could turn into a separator or a "." segment after we checked the
// path: refused, so the URI we check is the path that is used.
Status CheckPercentEscapes(std::string_view uri) {
  for (size_t i = uri.find('%'); i != std::string_view::npos;
       i = uri.find('%', i + 1)) {
    if (i + 2 >= uri.size()) break;  // no room for two hex digits
    std::optional<int> high = HexValue(uri[i + 1]);
    std::optional<int> low = HexValue(uri[i + 2]);
    if (!high || !low) continue;  // a literal '%' in a key
    auto decoded = static_cast<unsigned char>(*high * 16 + *low);
    if (decoded == '/' || decoded == '\\' || decoded == '.' || decoded == '%' ||
        IsControl(decoded)) {
      return BadUri(uri,
                    "contains \"" + std::string(uri.substr(i, 3)) +
                        "\", a percent-encoded '/', '\\', '.', '%' or control "
                        "character; give the path unencoded");
    }
  }
  return OkStatus();
}

// Checks that do not depend on the URI's structure; before the parser so no
// message from it ever quotes such input.
Status CheckCharacters(std::string_view uri) {
  if (uri.size() > kMaxTableUriLength) {
    return BadUri(uri, "is " + std::to_string(uri.size()) +
                           " bytes long; the limit is " +
                           std::to_string(kMaxTableUriLength));
  }
  for (char c : uri) {
    if (IsControl(static_cast<unsigned char>(c))) {
      return BadUri(uri, "contains a control character");
    }
  }
  if (uri.find('\\') != std::string_view::npos) {
    return BadUri(uri, "contains a '\\'; table paths use '/'");
  }
  return CheckPercentEscapes(uri);
}

// The segments after the bucket (or of a local path without its leading
// '/'); the S3 parser has refused ".", ".." and empty, LocalTableUri too.
Status CheckNoLogSegment(std::string_view prefix, std::string_view uri) {
  for (size_t start = 0; start <= prefix.size();) {
    size_t end = prefix.find('/', start);
    if (end == std::string_view::npos) end = prefix.size();
    if (prefix.substr(start, end - start) == "_delta_log") {
      return BadUri(uri,
                    "has a \"_delta_log\" segment; give the table's root, the "
                    "directory that contains _delta_log");
    }
    start = end + 1;
  }
  return OkStatus();
}

bool HasScheme(std::string_view uri, std::string_view scheme) {
  if (uri.size() < scheme.size()) return false;
  for (size_t i = 0; i < scheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(uri[i])) != scheme[i]) return false;
  }
  return true;
}

bool HasFileScheme(std::string_view uri) { return HasScheme(uri, "file://"); }

bool HasS3Scheme(std::string_view uri) {
  return HasScheme(uri, "s3://") || HasScheme(uri, "s3a://") || HasScheme(uri, "s3n://");
}

// "file:///srv/tables/events": an absolute path on the service's host, each
// segment plain, so that the path checked against the [local] roots is the
// path written to.
StatusOr<TableUri> LocalTableUri(std::string_view uri) {
  std::string_view path = uri.substr(7);  // after "file://"
  if (path.empty() || path.front() != '/') {
    return BadUri(uri, "must be file:///absolute/path (no host name, no relative path)");
  }
  // As for s3:// URIs: a URI reader would take these as a query, a fragment
  // or a separator, so the directory written would not be the one named.
  if (path.find(' ') != std::string_view::npos) return BadUri(uri, "contains spaces");
  if (path.find_first_of("?#") != std::string_view::npos) {
    return BadUri(uri, "has a query or fragment ('?' or '#')");
  }
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/") return BadUri(uri, "names the file system's root, not a table directory");
  const std::string_view segments = path.substr(1);
  for (size_t start = 0; start <= segments.size();) {
    size_t end = segments.find('/', start);
    if (end == std::string_view::npos) end = segments.size();
    const std::string_view segment = segments.substr(start, end - start);
    if (segment.empty()) return BadUri(uri, "has an empty path segment (\"//\")");
    if (segment == "." || segment == "..") {
      return BadUri(uri, "has a \"" + std::string(segment) + "\" segment; give the path plainly");
    }
    start = end + 1;
  }
  DC_RETURN_IF_ERROR(CheckNoLogSegment(segments, uri));
  return TableUri{"file://" + std::string(path), "", std::string(segments), std::string(path)};
}

}  // namespace

StatusOr<TableUri> NormalizeTableUri(std::string_view uri) {
  DC_RETURN_IF_ERROR(CheckCharacters(uri));
  if (HasFileScheme(uri)) return LocalTableUri(uri);
  // Hadoop's spelling of a local path (Path.toUri: "file:/srv/t"), which
  // Delta Spark sends as a Unity Catalog commit's table_uri.
  if (HasScheme(uri, "file:/")) return LocalTableUri("file://" + std::string(uri.substr(5)));
  if (!HasS3Scheme(uri)) {
    return BadUri(uri, "is not a table URI the service takes: s3://bucket/path (or s3a://, "
                       "s3n://), or file:///path under one of its [local] roots");
  }
  size_t sep = uri.find("://");
  // The parser drops any number of trailing '/'; only one is a plain spelling
  // of the root, more is an empty segment.
  if (sep != std::string_view::npos &&
      uri.substr(sep + 3).find("//") != std::string_view::npos) {
    return BadUri(uri, "has an empty path segment (\"//\")");
  }
  StatusOr<aws::S3Location> location = aws::ParseS3Uri(uri);
  if (!location.ok()) return location.status();
  DC_RETURN_IF_ERROR(CheckNoLogSegment(location->key_prefix, uri));
  TableUri table{"s3://" + location->bucket, location->bucket,
                 location->key_prefix, ""};
  if (!table.key_prefix.empty()) table.uri += "/" + table.key_prefix;
  return table;
}

bool TablePrefixCovers(std::string_view prefix, const TableUri& table) {
  std::string_view uri = table.uri;
  if (uri.size() < prefix.size() || uri.substr(0, prefix.size()) != prefix) {
    return false;
  }
  return uri.size() == prefix.size() || uri[prefix.size()] == '/';
}

Status ValidateStagedCommitKey(std::string_view key, Version version) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("staged commit key " + QuoteForMessage(key) +
                                " " + std::string(why));
  };
  const std::string expected = std::string(kLogDir) + "_staged_commits/" +
                               FormatVersion(version) + ".<uuid>.json";
  // Before ValidateObjectKey, whose message quotes the key as it is.
  if (key.size() > kMaxTableUriLength) return bad("is too long");
  for (char c : key) {
    if (IsControl(static_cast<unsigned char>(c))) {
      return bad("contains a control character");
    }
  }
  DC_RETURN_IF_ERROR(ValidateObjectKey(key).WithContext("staged commit"));
  if (key.substr(0, kLogDir.size()) != kLogDir) {
    return bad("is not under _delta_log/; expected " + expected);
  }
  ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
  if (parsed.type != LogFileType::kStagedCommit) {
    return bad("is not a staged commit name; expected " + expected +
               " (20-digit version, UUID)");
  }
  if (parsed.version != version) {
    return bad("names version " + std::to_string(parsed.version) +
               " but the commit is for version " + std::to_string(version));
  }
  return OkStatus();
}

}  // namespace deltacommit::service
