// ActionParser: Delta action lines -> Action, with simdjson's On Demand API.
//
// On Demand reads each value in place, so known fields are decoded straight
// into the structs and unknown ones are kept as slices of the input. Each
// struct's known fields are listed in a table (name, required, reader) that
// one generic loop walks; they are the only place the parser names a field.
// Decoding single values is ValueReader's job (action_json.cc).
//
// Errors are built only on failure: the happy path allocates nothing beyond
// the strings and maps the action itself holds.
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/action_json_internal.h"
#include "deltacommit/action_json.h"

namespace deltacommit {
namespace internal {
namespace {

using simdjson::error_code;

// --- Field tables -----------------------------------------------------------

template <typename T>
struct FieldSpec {
  std::string_view name;
  bool required;
  Status (*read)(ValueReader&, od::value&, const FieldPath&, T&);
};

template <typename M>
struct MemberOf;
template <typename C, typename F>
struct MemberOf<F C::*> {
  using Owner = C;
};

template <auto kMember>
Status ReadMember(ValueReader& reader, od::value& v, const FieldPath& path,
                  typename MemberOf<decltype(kMember)>::Owner& out) {
  return reader.Read(v, path, &(out.*kMember));
}

template <auto kMember>
constexpr FieldSpec<typename MemberOf<decltype(kMember)>::Owner> Req(
    std::string_view name) {
  return {name, true, &ReadMember<kMember>};
}

template <auto kMember>
constexpr FieldSpec<typename MemberOf<decltype(kMember)>::Owner> Opt(
    std::string_view name) {
  return {name, false, &ReadMember<kMember>};
}

// The index of `key` in `specs`, or specs.size() when it is not a known
// field. The search starts at `hint`, the entry after the last match: writers
// emit fields in the protocol's order, so the first comparison usually hits.
template <typename T>
size_t FindField(std::span<const FieldSpec<T>> specs, std::string_view key,
                 size_t hint) {
  for (size_t n = 0; n < specs.size(); ++n) {
    const size_t i = (hint + n) % specs.size();
    if (specs[i].name == key) return i;
  }
  return specs.size();
}

template <typename T>
Status KeepUnknown(ValueReader& reader, od::value& v, std::string_view key,
                   T& out) {
  DC_ASSIGN_OR_RETURN(const std::string_view raw, reader.ReadRaw(v));
  // Format has nowhere to keep extras; the protocol defines none for it.
  if constexpr (requires { out.unknown_fields; }) {
    out.unknown_fields.emplace_back(key, raw);
  }
  return OkStatus();
}

template <typename T>
Status CheckRequired(const FieldPath& path, std::span<const FieldSpec<T>> specs,
                     uint32_t seen) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].required && (seen & (uint32_t{1} << i)) == 0) {
      return InvalidArgumentError(path.ToString() +
                                  ": missing required field \"" +
                                  std::string(specs[i].name) + "\"");
    }
  }
  return OkStatus();
}

// The one loop over an object's fields: known ones through their table
// entry, unknown ones kept raw in order, then required ones checked.
template <typename T>
Status ReadFields(ValueReader& reader, od::value& v, const FieldPath& path,
                  std::span<const FieldSpec<T>> specs, T& out) {
  od::object object;
  DC_RETURN_IF_ERROR(reader.GetObject(v, path, &object));
  uint32_t seen = 0;
  size_t next = 0;
  for (auto field : object) {
    std::string_view key;
    od::value value;
    error_code error = field.unescaped_key().get(key);
    if (!error) error = field.value().get(value);
    if (error) return reader.Malformed(error);
    const size_t i = FindField(specs, key, next);
    if (i == specs.size()) {
      DC_RETURN_IF_ERROR(KeepUnknown(reader, value, key, out));
      continue;
    }
    next = i + 1;
    const FieldPath field_path{&path, specs[i].name};
    const uint32_t bit = uint32_t{1} << i;
    if ((seen & bit) != 0) return FieldError(field_path, "duplicate field");
    seen |= bit;
    DC_RETURN_IF_ERROR(specs[i].read(reader, value, field_path, out));
  }
  return CheckRequired(path, specs, seen);
}

using DvDescriptor = DeletionVectorDescriptor;

constexpr FieldSpec<Format> kFormatFields[] = {
    Req<&Format::provider>("provider"),
    // Optional: real Spark tables omit it.
    Opt<&Format::options>("options"),
};

constexpr FieldSpec<DvDescriptor> kDvFields[] = {
    Req<&DvDescriptor::storage_type>("storageType"),
    Req<&DvDescriptor::path_or_inline_dv>("pathOrInlineDv"),
    Opt<&DvDescriptor::offset>("offset"),
    Req<&DvDescriptor::size_in_bytes>("sizeInBytes"),
    Req<&DvDescriptor::cardinality>("cardinality"),
};

}  // namespace

Status ValueReader::Read(od::value& v, const FieldPath& path, Format* out) {
  return ReadFields<Format>(*this, v, path, kFormatFields, *out);
}

Status ValueReader::Read(od::value& v, const FieldPath& path,
                         DeletionVectorDescriptor* out) {
  return ReadFields<DvDescriptor>(*this, v, path, kDvFields, *out);
}

namespace {

constexpr FieldSpec<Protocol> kProtocolFields[] = {
    Req<&Protocol::min_reader_version>("minReaderVersion"),
    Req<&Protocol::min_writer_version>("minWriterVersion"),
    Opt<&Protocol::reader_features>("readerFeatures"),
    Opt<&Protocol::writer_features>("writerFeatures"),
};

constexpr FieldSpec<Metadata> kMetadataFields[] = {
    Req<&Metadata::id>("id"),
    Opt<&Metadata::name>("name"),
    Opt<&Metadata::description>("description"),
    Req<&Metadata::format>("format"),
    // Optional although the protocol requires it: Delta's own early writers
    // (and its golden tables) left it out, and readers accept that.
    Opt<&Metadata::schema_string>("schemaString"),
    Req<&Metadata::partition_columns>("partitionColumns"),
    Opt<&Metadata::created_time>("createdTime"),
    Opt<&Metadata::configuration>("configuration"),
};

constexpr FieldSpec<AddFile> kAddFields[] = {
    Req<&AddFile::path>("path"),
    Req<&AddFile::partition_values>("partitionValues"),
    Req<&AddFile::size>("size"),
    Req<&AddFile::modification_time>("modificationTime"),
    Req<&AddFile::data_change>("dataChange"),
    Opt<&AddFile::stats>("stats"),
    Opt<&AddFile::tags>("tags"),
    Opt<&AddFile::deletion_vector>("deletionVector"),
    Opt<&AddFile::base_row_id>("baseRowId"),
    Opt<&AddFile::default_row_commit_version>("defaultRowCommitVersion"),
    Opt<&AddFile::clustering_provider>("clusteringProvider"),
};

constexpr FieldSpec<RemoveFile> kRemoveFields[] = {
    Req<&RemoveFile::path>("path"),
    Opt<&RemoveFile::deletion_timestamp>("deletionTimestamp"),
    Req<&RemoveFile::data_change>("dataChange"),
    Opt<&RemoveFile::extended_file_metadata>("extendedFileMetadata"),
    Opt<&RemoveFile::partition_values>("partitionValues"),
    Opt<&RemoveFile::size>("size"),
    Opt<&RemoveFile::stats>("stats"),
    Opt<&RemoveFile::tags>("tags"),
    Opt<&RemoveFile::deletion_vector>("deletionVector"),
    Opt<&RemoveFile::base_row_id>("baseRowId"),
    Opt<&RemoveFile::default_row_commit_version>("defaultRowCommitVersion"),
};

constexpr FieldSpec<AddCdcFile> kCdcFields[] = {
    Req<&AddCdcFile::path>("path"),
    Req<&AddCdcFile::partition_values>("partitionValues"),
    Req<&AddCdcFile::size>("size"),
    Req<&AddCdcFile::data_change>("dataChange"),
    Opt<&AddCdcFile::tags>("tags"),
};

constexpr FieldSpec<SetTransaction> kTxnFields[] = {
    Req<&SetTransaction::app_id>("appId"),
    Req<&SetTransaction::version>("version"),
    Opt<&SetTransaction::last_updated>("lastUpdated"),
};

constexpr FieldSpec<CommitInfo> kCommitInfoFields[] = {
    Opt<&CommitInfo::in_commit_timestamp>("inCommitTimestamp"),
    Opt<&CommitInfo::timestamp>("timestamp"),
    Opt<&CommitInfo::operation>("operation"),
    Opt<&CommitInfo::operation_parameters>("operationParameters"),
    Opt<&CommitInfo::read_version>("readVersion"),
    Opt<&CommitInfo::isolation_level>("isolationLevel"),
    Opt<&CommitInfo::is_blind_append>("isBlindAppend"),
    Opt<&CommitInfo::txn_id>("txnId"),
    Opt<&CommitInfo::engine_info>("engineInfo"),
};

constexpr FieldSpec<DomainMetadata> kDomainMetadataFields[] = {
    Req<&DomainMetadata::domain>("domain"),
    Req<&DomainMetadata::configuration>("configuration"),
    Req<&DomainMetadata::removed>("removed"),
};

constexpr FieldSpec<CheckpointMetadata> kCheckpointMetadataFields[] = {
    Req<&CheckpointMetadata::version>("version"),
    Opt<&CheckpointMetadata::tags>("tags"),
};

constexpr FieldSpec<Sidecar> kSidecarFields[] = {
    Req<&Sidecar::path>("path"),
    Req<&Sidecar::size_in_bytes>("sizeInBytes"),
    Req<&Sidecar::modification_time>("modificationTime"),
    Opt<&Sidecar::tags>("tags"),
};

// --- Actions ----------------------------------------------------------------

template <typename T, const auto& kSpecs>
Status ReadAction(ValueReader& reader, std::string_view key, od::value& v,
                  Action* out) {
  static_assert(std::size(kSpecs) <= 32, "ReadFields tracks fields in 32 bits");
  const FieldPath path{nullptr, key};
  T action;
  DC_RETURN_IF_ERROR(ReadFields<T>(reader, v, path, kSpecs, action));
  *out = std::move(action);
  return OkStatus();
}

struct ActionReader {
  std::string_view key;
  Status (*read)(ValueReader&, std::string_view, od::value&, Action*);
};

// The keys must match ActionType() in actions.cc; the round-trip tests write
// with one and read with the other. Ordered by how often each appears.
constexpr ActionReader kActionReaders[] = {
    {"add", &ReadAction<AddFile, kAddFields>},
    {"remove", &ReadAction<RemoveFile, kRemoveFields>},
    {"commitInfo", &ReadAction<CommitInfo, kCommitInfoFields>},
    {"cdc", &ReadAction<AddCdcFile, kCdcFields>},
    {"txn", &ReadAction<SetTransaction, kTxnFields>},
    {"metaData", &ReadAction<Metadata, kMetadataFields>},
    {"protocol", &ReadAction<Protocol, kProtocolFields>},
    {"domainMetadata", &ReadAction<DomainMetadata, kDomainMetadataFields>},
    {"checkpointMetadata",
     &ReadAction<CheckpointMetadata, kCheckpointMetadataFields>},
    {"sidecar", &ReadAction<Sidecar, kSidecarFields>},
};

Status ReadActionValue(ValueReader& reader, std::string_view key, od::value& v,
                       Action* out) {
  for (const ActionReader& entry : kActionReaders) {
    if (entry.key == key) return entry.read(reader, key, v, out);
  }
  // A newer protocol's action: keep it whole so callers can name it.
  DC_ASSIGN_OR_RETURN(const std::string_view raw, reader.ReadRaw(v));
  *out = UnknownAction{std::string(key), std::string(raw)};
  return OkStatus();
}

Status KeyCountError(size_t count, std::string_view keys) {
  std::string message =
      "an action line must be an object with exactly one key, got " +
      std::to_string(count) + " keys";
  if (count > 0) message += " (" + std::string(keys) + ")";
  return InvalidArgumentError(std::move(message));
}

// Lines in `content` (newlines + 1), for reserving: memchr finds each
// newline a vector at a time, where std::count looks at every byte (~7% of
// replaying a log of small commits).
size_t LineCount(std::string_view content) {
  size_t lines = 1;
  if (content.empty()) return lines;  // its data() may be null
  const char* end = content.data() + content.size();
  for (const char* p = content.data();
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) !=
       nullptr;
       ++p) {
    ++lines;
  }
  return lines;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace
}  // namespace internal

namespace od = simdjson::ondemand;
using internal::ValueReader;
using simdjson::error_code;

struct ActionParser::Impl {
  // REQUIRES: data[len, capacity) is readable (simdjson's padding).
  StatusOr<Action> ParsePadded(const char* data, size_t len, size_t capacity);
  // The root object's fields: exactly one, the action.
  Status ReadRoot(od::document& doc, ValueReader& reader, Action* out);

  od::parser parser;
  simdjson::dom::parser validator;  // checks raw slices; see ReadRaw
  std::string buffer;  // the padded copy of the input, reused across calls
};

StatusOr<Action> ActionParser::Impl::ParsePadded(const char* data, size_t len,
                                                 size_t capacity) {
  od::document doc;
  const simdjson::padded_string_view view(data, len, capacity);
  if (error_code error = parser.iterate(view).get(doc)) {
    return InvalidArgumentError(std::string("malformed JSON: ") +
                                simdjson::error_message(error));
  }
  ValueReader reader(doc, data, validator);
  Action action;
  DC_RETURN_IF_ERROR(ReadRoot(doc, reader, &action));
  // On Demand stops at the root's closing brace; anything after is garbage.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return reader.MalformedAt(rest, "unexpected content after the action");
  }
  return action;
}

Status ActionParser::Impl::ReadRoot(od::document& doc, ValueReader& reader,
                                    Action* out) {
  od::object root;
  if (auto error = doc.get_object().get(root)) {
    od::json_type type{};
    if (error != simdjson::INCORRECT_TYPE ||
        doc.type().get(type) != simdjson::SUCCESS) {
      return reader.Malformed(error);
    }
    return InvalidArgumentError("an action line must be an object, got " +
                                std::string(internal::TypeName(type)));
  }
  size_t count = 0;
  std::string keys;  // filled only once a second key shows up
  std::string_view first_key;
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return reader.Malformed(e);
    od::value value;
    if (auto e = field.value().get(value)) return reader.Malformed(e);
    if (++count == 1) {
      first_key = key;
      DC_RETURN_IF_ERROR(internal::ReadActionValue(reader, key, value, out));
    } else {
      if (count == 2) keys = "\"" + std::string(first_key) + "\"";
      keys += ", \"" + std::string(key) + "\"";
    }
  }
  if (count != 1) return internal::KeyCountError(count, keys);
  return OkStatus();
}

ActionParser::ActionParser() : impl_(std::make_unique<Impl>()) {}
ActionParser::~ActionParser() = default;

StatusOr<Action> ActionParser::ParseLine(std::string_view line) {
  std::string& buffer = impl_->buffer;
  buffer.assign(line);
  buffer.append(simdjson::SIMDJSON_PADDING, ' ');
  return impl_->ParsePadded(buffer.data(), line.size(), buffer.size());
}

StatusOr<std::vector<Action>> ActionParser::ParseCommit(
    std::string_view content) {
  // One padded copy of the whole file: each line's padding is simply the
  // bytes that follow it, so lines are parsed in place.
  std::string& buffer = impl_->buffer;
  buffer.assign(content);
  buffer.append(simdjson::SIMDJSON_PADDING, ' ');
  std::vector<Action> actions;
  actions.reserve(internal::LineCount(content));
  size_t line_number = 0;
  for (size_t begin = 0; begin < content.size();) {
    size_t end = content.find('\n', begin);
    if (end == std::string_view::npos) end = content.size();
    ++line_number;
    std::string_view line = content.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!internal::IsBlank(line)) {
      StatusOr<Action> action = impl_->ParsePadded(
          buffer.data() + begin, line.size(), buffer.size() - begin);
      if (!action.ok()) {
        return action.status().WithContext("line " +
                                           std::to_string(line_number));
      }
      actions.push_back(std::move(action).value());
    }
    begin = end + 1;
  }
  return actions;
}

}  // namespace deltacommit
