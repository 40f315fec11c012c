#include "add_file_codec.h"

#include <utility>

namespace deltacommit::internal {

namespace {

// Which of the fields after size and modificationTime are present.
enum Flag : uint32_t {
  kDataChange = 1u << 0,
  kPathDiffers = 1u << 1,  // the path as written is not the key's path
  kDeletionVector = 1u << 2,
  kStats = 1u << 3,
  kTags = 1u << 4,
  kBaseRowId = 1u << 5,
  kDefaultRowCommitVersion = 1u << 6,
  kClusteringProvider = 1u << 7,
  kUnknownFields = 1u << 8,
  kDvOffset = 1u << 9,
};

void PutVarint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutSigned(int64_t v, std::string& out) {
  PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

void PutString(std::string_view s, std::string& out) {
  PutVarint(s.size(), out);
  out.append(s);
}

// A nullable value: 0 for null, else its length + 1, then its bytes.
void PutNullable(const std::optional<std::string>& s, std::string& out) {
  if (!s) {
    PutVarint(0, out);
    return;
  }
  PutVarint(s->size() + 1, out);
  out.append(*s);
}

void PutMap(const NullableStringMap& map, std::string& out) {
  PutVarint(map.size(), out);
  for (const auto& [key, value] : map) {
    PutString(key, out);
    PutNullable(value, out);
  }
}

void PutUnknown(const UnknownFields& fields, std::string& out) {
  PutVarint(fields.size(), out);
  for (const auto& [name, raw] : fields) {
    PutString(name, out);
    PutString(raw, out);
  }
}

// Reads what the Put functions wrote; the blob is ours, so it is trusted.
// The Read*Into members overwrite a value in place, reusing the storage it
// has: iterating a snapshot decodes every file into one AddFile.
class Reader {
 public:
  explicit Reader(std::string_view blob) : p_(blob.data()) {}

  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto byte = static_cast<uint8_t>(*p_++);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return v;
    }
  }
  int64_t Signed() {
    const uint64_t v = Varint();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  std::string_view View() {
    const size_t n = Varint();
    std::string_view s(p_, n);
    p_ += n;
    return s;
  }
  void ReadInto(std::string& out) {
    const std::string_view s = View();
    out.assign(s.data(), s.size());
  }
  // A string present when `present`, else absent.
  void ReadInto(bool present, std::optional<std::string>& out) {
    if (!present) {
      out.reset();
      return;
    }
    if (!out) out.emplace();
    ReadInto(*out);
  }
  void ReadNullableInto(std::optional<std::string>& out) {
    const uint64_t n = Varint();
    if (n == 0) {
      out.reset();
      return;
    }
    if (!out) out.emplace();
    out->assign(p_, n - 1);
    p_ += n - 1;
  }
  // Files of a table mostly share their partition columns: when `map`
  // holds the same keys, only the values are overwritten.
  void ReadMapInto(NullableStringMap& map) {
    const uint64_t n = Varint();
    if (map.size() == n) {
      const char* start = p_;
      auto it = map.begin();
      for (; it != map.end() && it->first == View(); ++it) ReadNullableInto(it->second);
      if (it == map.end()) return;
      p_ = start;
    }
    map.clear();
    for (uint64_t i = 0; i < n; ++i) {
      auto entry = map.emplace_hint(map.end(), std::string(View()), std::nullopt);
      ReadNullableInto(entry->second);
    }
  }
  void ReadUnknownInto(UnknownFields& fields) {
    fields.resize(Varint());
    for (auto& [name, raw] : fields) {
      ReadInto(name);
      ReadInto(raw);
    }
  }
  template <typename T>
  void ReadSignedInto(bool present, std::optional<T>& out) {
    if (present) {
      out = static_cast<T>(Signed());
    } else {
      out.reset();
    }
  }

 private:
  const char* p_;
};

uint32_t FlagsOf(const FileKeyView& key, const AddFile& add) {
  uint32_t flags = 0;
  if (add.data_change) flags |= kDataChange;
  if (add.path != key.path) flags |= kPathDiffers;
  if (add.deletion_vector) flags |= kDeletionVector;
  if (add.deletion_vector && add.deletion_vector->offset) flags |= kDvOffset;
  if (add.stats) flags |= kStats;
  if (add.tags) flags |= kTags;
  if (add.base_row_id) flags |= kBaseRowId;
  if (add.default_row_commit_version) flags |= kDefaultRowCommitVersion;
  if (add.clustering_provider) flags |= kClusteringProvider;
  if (!add.unknown_fields.empty()) flags |= kUnknownFields;
  return flags;
}

// Reads the flags and the key, leaving `r` at the path as written (if it
// differs) or the size.
FileKeyView ReadKey(Reader& r, uint32_t flags) {
  FileKeyView key;
  key.path = r.View();
  if (flags & kDeletionVector) key.dv_id = r.View();
  return key;
}

}  // namespace

void EncodeAddFile(const FileKeyView& key, const AddFile& add, std::string& out) {
  const uint32_t flags = FlagsOf(key, add);
  PutVarint(flags, out);
  PutString(key.path, out);
  if (flags & kDeletionVector) PutString(key.dv_id, out);
  if (flags & kPathDiffers) PutString(add.path, out);
  PutSigned(add.size, out);
  PutSigned(add.modification_time, out);
  if (flags & kStats) PutString(*add.stats, out);
  PutMap(add.partition_values, out);
  if (flags & kTags) PutMap(*add.tags, out);
  if (flags & kDeletionVector) {
    const DeletionVectorDescriptor& dv = *add.deletion_vector;
    PutString(dv.storage_type, out);
    PutString(dv.path_or_inline_dv, out);
    if (flags & kDvOffset) PutSigned(*dv.offset, out);
    PutSigned(dv.size_in_bytes, out);
    PutSigned(dv.cardinality, out);
    PutUnknown(dv.unknown_fields, out);
  }
  if (flags & kBaseRowId) PutSigned(*add.base_row_id, out);
  if (flags & kDefaultRowCommitVersion) PutSigned(*add.default_row_commit_version, out);
  if (flags & kClusteringProvider) PutString(*add.clustering_provider, out);
  if (flags & kUnknownFields) PutUnknown(add.unknown_fields, out);
}

FileKeyView DecodeKey(std::string_view blob) {
  Reader r(blob);
  const auto flags = static_cast<uint32_t>(r.Varint());
  return ReadKey(r, flags);
}

int64_t DecodeSize(std::string_view blob) {
  Reader r(blob);
  const auto flags = static_cast<uint32_t>(r.Varint());
  ReadKey(r, flags);
  if (flags & kPathDiffers) r.View();
  return r.Signed();
}

void DecodeAddFileInto(std::string_view blob, AddFile& add) {
  Reader r(blob);
  const auto flags = static_cast<uint32_t>(r.Varint());
  const FileKeyView key = ReadKey(r, flags);
  if (flags & kPathDiffers) {
    r.ReadInto(add.path);
  } else {
    add.path.assign(key.path.data(), key.path.size());
  }
  add.size = r.Signed();
  add.modification_time = r.Signed();
  add.data_change = (flags & kDataChange) != 0;
  r.ReadInto((flags & kStats) != 0, add.stats);
  r.ReadMapInto(add.partition_values);
  if (flags & kTags) {
    if (!add.tags) add.tags.emplace();
    r.ReadMapInto(*add.tags);
  } else {
    add.tags.reset();
  }
  if (flags & kDeletionVector) {
    DeletionVectorDescriptor& dv =
        add.deletion_vector ? *add.deletion_vector : add.deletion_vector.emplace();
    r.ReadInto(dv.storage_type);
    r.ReadInto(dv.path_or_inline_dv);
    r.ReadSignedInto((flags & kDvOffset) != 0, dv.offset);
    dv.size_in_bytes = static_cast<int32_t>(r.Signed());
    dv.cardinality = r.Signed();
    r.ReadUnknownInto(dv.unknown_fields);
  } else {
    add.deletion_vector.reset();
  }
  r.ReadSignedInto((flags & kBaseRowId) != 0, add.base_row_id);
  r.ReadSignedInto((flags & kDefaultRowCommitVersion) != 0, add.default_row_commit_version);
  r.ReadInto((flags & kClusteringProvider) != 0, add.clustering_provider);
  if (flags & kUnknownFields) {
    r.ReadUnknownInto(add.unknown_fields);
  } else {
    add.unknown_fields.clear();
  }
}

AddFile DecodeAddFile(std::string_view blob) {
  AddFile add;
  DecodeAddFileInto(blob, add);
  return add;
}

}  // namespace deltacommit::internal
