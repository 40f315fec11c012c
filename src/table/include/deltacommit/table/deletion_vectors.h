// Deletion vectors (the protocol's "Deletion Vectors" and "Deletion Vector
// Format"): which rows of a data file a DV marks deleted, read from the log
// (inline, `i`) or from a DV file of the table (`u`: a UUID, `p`: an
// absolute path), with every check the format allows: the file's version
// byte, the DV's size and place in the file, its CRC-32, the bitmap's magic
// number and bucket keys, and the cardinality the descriptor states.
//
// Thread-safety: a DeletionVectorReader serves one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"

namespace deltacommit {

// Z85 (the protocol's Base85 variant): 5 characters per 4 bytes, big endian.
// kInvalidArgument for a length that is not a multiple of 5 or a character
// outside the alphabet.
StatusOr<std::string> Z85Decode(std::string_view text);
std::string Z85Encode(std::string_view bytes);  // bytes padded with zeros to a multiple of 4

// The key under the table of a `u` DV's file:
// "<random prefix>/deletion_vector_<uuid>.bin" (no prefix: at the root).
StatusOr<std::string> DeletionVectorFileKey(const DeletionVectorDescriptor& dv);

// The row indexes of a serialized RoaringBitmapArray (magic number, then a
// 64-bit Roaring bitmap in the portable format), ascending; there must be
// `cardinality` of them (checked before they are listed).
// kInvalidArgument naming what is wrong.
StatusOr<std::vector<uint64_t>> DecodeRoaringBitmapArray(std::string_view bytes,
                                                         int64_t cardinality);

// `rows` (row indexes, ascending, no repeats) as a RoaringBitmapArray in the
// protocol's portable format: the magic number, the bucket count, then each
// bucket's key and its 32-bit Roaring bitmap (run-optimised, as Delta writes
// them).
std::string EncodeRoaringBitmapArray(const std::vector<uint64_t>& rows);

// A DV file being built (the protocol's "Deletion Vector File Storage
// Format"): the format version byte, then each DV as its size (4 bytes, big
// endian), its RoaringBitmapArray and the CRC-32 of those bytes (4 bytes,
// big endian). The file is named by a fresh UUID at the table's root.
class DeletionVectorFile {
 public:
  // `uuid`: its canonical text (NewUuid()).
  explicit DeletionVectorFile(std::string_view uuid);
  // Appends a DV deleting `rows` (ascending, no repeats); its descriptor
  // (storage type `u`, the offset of its size field).
  DeletionVectorDescriptor Add(const std::vector<uint64_t>& rows);
  bool empty() const { return bytes_.size() == 1; }
  const std::string& key() const { return key_; }  // under the table root
  const std::string& bytes() const { return bytes_; }

 private:
  std::string path_or_inline_dv_;  // the UUID in Z85 (no random prefix)
  std::string key_;
  std::string bytes_;
};

// Reads the DVs of a table's files; a DV file is fetched once however many
// DVs it holds.
class DeletionVectorReader {
 public:
  // `table_uri`: the table's location as its actions' absolute paths spell
  // it ("s3://b/t", "file:///data/t").
  DeletionVectorReader(ObjectStore& store, std::string table_uri)
      : store_(store), table_uri_(std::move(table_uri)) {}

  // The rows `dv` deletes from `data_file` (named in errors), ascending;
  // kInvalidArgument naming the data file and what is wrong with its DV,
  // kNotFound when its file is missing. `num_records` (the file's stats,
  // when known) bounds the cardinality before anything is read: a DV
  // cannot delete more rows than its file has.
  StatusOr<std::vector<uint64_t>> DeletedRows(const DeletionVectorDescriptor& dv,
                                              std::string_view data_file,
                                              std::optional<int64_t> num_records = std::nullopt);

 private:
  StatusOr<std::string> StoredBytes(const DeletionVectorDescriptor& dv);
  StatusOr<std::string_view> FileBytes(const std::string& key);

  ObjectStore& store_;
  std::string table_uri_;
  std::map<std::string, std::string> files_;  // DV files fetched, by key
};

}  // namespace deltacommit
