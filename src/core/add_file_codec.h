// Private to deltacommit_core: an AddFile as one compact run of bytes, the
// form in which a snapshot keeps its active files (packed_files.h).
//
// A snapshot of a million files kept each as an AddFile (416 bytes inline,
// its path, stats and partition map on the heap) and a map node keyed by a
// copy of the path: 832 bytes a file, 3.2x the add's JSON. Encoded, a file
// is its strings' bytes plus a few bytes of lengths and flags.
//
// Layout: a flags varint, the key (canonical path, then the deletion
// vector's unique id if any), the path as written when it differs from the
// key's, size and modificationTime, then each optional field present in the
// flags. Integers are LEB128 varints (signed ones zigzag-encoded), strings
// their length then their bytes. The key comes first so that lookups and
// sorting read it without decoding the rest.
//
// Thread-safety: plain functions.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"

namespace deltacommit::internal {

// A FileKey's fields, viewed where they are stored.
struct FileKeyView {
  std::string_view path;
  std::string_view dv_id;
  friend bool operator==(const FileKeyView&, const FileKeyView&) = default;
  friend std::strong_ordering operator<=>(const FileKeyView& a, const FileKeyView& b) {
    if (auto c = a.path.compare(b.path); c != 0) return c <=> 0;
    return a.dv_id.compare(b.dv_id) <=> 0;
  }
};

// Appends `add`, keyed by `key` (KeyOf(add), viewed), to `out`.
void EncodeAddFile(const FileKeyView& key, const AddFile& add, std::string& out);

// REQUIRES: `blob` was written by EncodeAddFile.
FileKeyView DecodeKey(std::string_view blob);
int64_t DecodeSize(std::string_view blob);
AddFile DecodeAddFile(std::string_view blob);
// Overwrites every field of `add`, reusing the storage its strings and
// maps have.
void DecodeAddFileInto(std::string_view blob, AddFile& add);

}  // namespace deltacommit::internal
