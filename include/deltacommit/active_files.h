// ActiveFiles: a snapshot's active files, keyed by FileKey and iterated in
// key order, kept compact and cheap to carry forward.
//
// Each file is stored encoded (its strings' bytes and a few bytes of
// lengths) in an arena with a hash index: 0.7x the add actions' JSON in
// docs/benchmarks.md's million-file table, where a std::map of AddFile
// values took 3.2x. The first iteration after a change sorts the files
// (4 more bytes a file kept, 40 a file while sorting). Iterating decodes each file
// as it is reached: `*it` is an AddFile value held by the iterator, valid
// until the iterator moves on; keep a copy, not a pointer, to use it later.
//
// A long-lived writer derives each new version's snapshot from the one it
// holds: a copy shares the packed files and keeps what changed since in a
// small ordered map, folded into a new packed store once it outgrows
// 4 sqrt(n), so a copy costs O(sqrt(n)) and folding is amortised. Files
// being built alone (a snapshot loaded from scratch) are changed in place.
//
// Thread-safety: const members may be called from several threads at once;
// the mutating ones need exclusive use.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/actions.h"

namespace deltacommit {

// Identity of a logical file: the protocol keys active files by path and
// deletion vector unique id (empty when the file has no deletion vector).
struct FileKey {
  std::string path;
  std::string dv_id;
  auto operator<=>(const FileKey&) const = default;
};

FileKey KeyOf(const AddFile& add);
FileKey KeyOf(const RemoveFile& remove);

namespace internal {
class PackedFiles;
}

class ActiveFiles {
 public:
  using value_type = std::pair<FileKey, AddFile>;
  class const_iterator;

  ActiveFiles();
  ActiveFiles(const ActiveFiles& other);
  ActiveFiles& operator=(const ActiveFiles&) = delete;
  ~ActiveFiles();

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // In key order.
  const_iterator begin() const;
  const_iterator end() const;
  std::optional<AddFile> Find(const FileKey& key) const;

  // For log replay. BeginVersion starts a version's changes; changes are
  // folded when due, between versions and within one. InsertOrAssign tells
  // whether the add replaced one from the same version, which the protocol
  // forbids.
  struct Replaced {
    int64_t size;       // the replaced file's
    bool same_version;  // it was inserted since the last BeginVersion
  };
  void BeginVersion();
  std::optional<Replaced> InsertOrAssign(const AddFile& add);
  // The erased file's size, if `key` was there.
  std::optional<int64_t> Erase(const FileKey& key);

 private:
  struct Change {
    std::optional<AddFile> add;  // nullopt: erased from base_
    uint32_t version;            // the BeginVersion count that made it
  };
  using Changes = std::map<FileKey, Change>;

  bool Owned();
  void Compact();

  std::shared_ptr<internal::PackedFiles> base_;
  Changes changes_;
  size_t size_ = 0;
  uint32_t version_ = 0;
  std::string scratch_;  // an add being encoded
};

class ActiveFiles::const_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = ActiveFiles::value_type;
  using difference_type = std::ptrdiff_t;
  using pointer = const value_type*;
  using reference = const value_type&;

  const_iterator() = default;
  reference operator*() const;
  pointer operator->() const { return &**this; }
  const_iterator& operator++();
  // No copy to return: it would hold the decoded file a caller then
  // points into.
  void operator++(int) { ++*this; }
  friend bool operator==(const const_iterator& a, const const_iterator& b) {
    return a.base_pos_ == b.base_pos_ && a.change_ == b.change_;
  }

 private:
  friend class ActiveFiles;
  // Where the current file comes from: the packed base, a change, or a
  // change replacing the base's file of the same key.
  enum class From { kBase, kChange, kBoth };

  const_iterator(const ActiveFiles* files, const std::vector<uint32_t>* order, size_t base_pos,
                 Changes::const_iterator change)
      : files_(files), order_(order), base_pos_(base_pos), change_(change) {}
  void Settle();
  void Advance();

  const ActiveFiles* files_ = nullptr;
  const std::vector<uint32_t>* order_ = nullptr;  // the base's ids in key order
  size_t base_pos_ = 0;
  Changes::const_iterator change_;
  From from_ = From::kBase;
  mutable std::optional<value_type> value_;  // the file decoded last
  mutable bool decoded_ = false;             // value_ is the current file
};

}  // namespace deltacommit
