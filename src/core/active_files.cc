#include "deltacommit/active_files.h"

#include <algorithm>
#include <atomic>
#include <string_view>

#include "add_file_codec.h"
#include "deltacommit/file_map.h"
#include "packed_files.h"

namespace deltacommit {

using internal::DecodeAddFile;
using internal::DecodeKey;
using internal::DecodeSize;
using internal::FileKeyView;
using internal::PackedFiles;

namespace {

// Spark qualifies scheme-less absolute paths with the file system's scheme,
// so "file:/a/b", "file:///a/b" and "/a/b" name one file (golden tables
// canonicalized-paths-*). Other paths are compared as written.
std::string_view CanonicalPath(std::string_view p) {
  if (!p.starts_with("file:")) return p;
  p.remove_prefix(5);
  if (p.starts_with("///")) p.remove_prefix(2);
  return p;
}

std::string DvIdOf(const std::optional<DeletionVectorDescriptor>& dv) {
  return dv ? dv->UniqueId() : std::string();
}

FileKeyView ViewOf(const FileKey& key) { return {key.path, key.dv_id}; }

const std::vector<uint32_t>& NoIds() {
  static const std::vector<uint32_t> none;
  return none;
}

}  // namespace

FileKey KeyOf(const AddFile& add) {
  return {std::string(CanonicalPath(add.path)), DvIdOf(add.deletion_vector)};
}

FileKey KeyOf(const RemoveFile& remove) {
  return {std::string(CanonicalPath(remove.path)), DvIdOf(remove.deletion_vector)};
}

ActiveFiles::ActiveFiles() = default;
ActiveFiles::~ActiveFiles() = default;

ActiveFiles::ActiveFiles(const ActiveFiles& other)
    : base_(other.base_), changes_(other.changes_), size_(other.size_), version_(other.version_) {}

ActiveFiles::const_iterator ActiveFiles::begin() const {
  const std::vector<uint32_t>* order = base_ != nullptr ? &base_->Order() : &NoIds();
  const_iterator it(this, order, 0, changes_.begin());
  it.Settle();
  return it;
}

ActiveFiles::const_iterator ActiveFiles::end() const {
  // The base's position past its last file: its size, without sorting it.
  return const_iterator(this, nullptr, base_ != nullptr ? base_->size() : 0, changes_.end());
}

std::optional<AddFile> ActiveFiles::Find(const FileKey& key) const {
  if (auto it = changes_.find(key); it != changes_.end()) return it->second.add;
  if (base_ == nullptr) return std::nullopt;
  const FileKeyView view = ViewOf(key);
  const uint32_t id = base_->Find(view, PackedFiles::Hash(view));
  if (id == PackedFiles::kNone) return std::nullopt;
  return DecodeAddFile(base_->Blob(id));
}

void ActiveFiles::BeginVersion() {
  Compact();
  ++version_;
}

std::optional<ActiveFiles::Replaced> ActiveFiles::InsertOrAssign(const AddFile& add) {
  const std::string dv_id = DvIdOf(add.deletion_vector);
  const FileKeyView key{CanonicalPath(add.path), dv_id};
  const uint32_t hash = PackedFiles::Hash(key);
  if (Owned()) {
    scratch_.clear();
    internal::EncodeAddFile(key, add, scratch_);
    const std::optional<PackedFiles::Old> old = base_->Put(key, hash, scratch_, version_);
    if (!old) {
      ++size_;
      return std::nullopt;
    }
    return Replaced{old->size, old->batch == version_};
  }
  FileKey owned_key{std::string(key.path), dv_id};
  std::optional<Replaced> replaced;
  auto it = changes_.lower_bound(owned_key);
  if (it != changes_.end() && it->first == owned_key) {
    if (it->second.add) replaced = Replaced{it->second.add->size, it->second.version == version_};
    it->second = Change{add, version_};
  } else {
    // A file of the shared base came from an earlier version.
    if (const uint32_t id = base_->Find(key, hash); id != PackedFiles::kNone) {
      replaced = Replaced{DecodeSize(base_->Blob(id)), false};
    }
    changes_.emplace_hint(it, std::move(owned_key), Change{add, version_});
  }
  if (!replaced) ++size_;
  Compact();
  return replaced;
}

std::optional<int64_t> ActiveFiles::Erase(const FileKey& key) {
  const FileKeyView view = ViewOf(key);
  const uint32_t hash = PackedFiles::Hash(view);
  if (Owned()) {
    const std::optional<PackedFiles::Old> old = base_->Remove(view, hash);
    if (!old) return std::nullopt;
    --size_;
    return old->size;
  }
  const uint32_t in_base = base_->Find(view, hash);
  std::optional<int64_t> size;
  if (auto it = changes_.find(key); it != changes_.end()) {
    if (!it->second.add) return std::nullopt;  // erased already
    size = it->second.add->size;
    if (in_base != PackedFiles::kNone) {
      it->second = Change{std::nullopt, version_};
    } else {
      changes_.erase(it);
    }
  } else {
    if (in_base == PackedFiles::kNone) return std::nullopt;
    size = DecodeSize(base_->Blob(in_base));
    changes_.emplace(key, Change{std::nullopt, version_});
  }
  --size_;
  Compact();
  return size;
}

// Alone with its base, and no changes kept beside it: change it in place.
bool ActiveFiles::Owned() {
  if (base_ == nullptr) base_ = std::make_shared<PackedFiles>();
  if (!changes_.empty() || base_.use_count() != 1) return false;
  // use_count is read relaxed: see the last other owner's reads of the
  // base before changing it.
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
}

// Folds the changes into a new base once they are due (DueToFold): at the
// start of a version, and as a version's changes come, so that a large
// version on a shared base keeps its files encoded, not as AddFile values
// beside it. Each file keeps the version that put it, so a fold within a
// version still tells a repeated add (the base is then owned: Put).
void ActiveFiles::Compact() {
  if (!DueToFold(changes_.size(), base_ != nullptr ? base_->size() : 0)) return;
  // Changes are kept only beside a base (Owned made one).
  std::shared_ptr<PackedFiles> packed = base_->Copy();
  for (const auto& [key, change] : changes_) {
    const FileKeyView view = ViewOf(key);
    const uint32_t hash = PackedFiles::Hash(view);
    if (change.add) {
      scratch_.clear();
      internal::EncodeAddFile(view, *change.add, scratch_);
      packed->Put(view, hash, scratch_, change.version);
    } else {
      packed->Remove(view, hash);
    }
  }
  base_ = std::move(packed);
  changes_.clear();
}

// Each file is decoded over the one before, reusing its strings and maps.
ActiveFiles::const_iterator::reference ActiveFiles::const_iterator::operator*() const {
  if (!value_) value_.emplace();
  if (!decoded_) {
    auto& [key, add] = *value_;
    if (from_ == From::kBase) {
      const std::string_view blob = files_->base_->Blob((*order_)[base_pos_]);
      const FileKeyView stored = DecodeKey(blob);
      key.path.assign(stored.path.data(), stored.path.size());
      key.dv_id.assign(stored.dv_id.data(), stored.dv_id.size());
      internal::DecodeAddFileInto(blob, add);
    } else {
      key = change_->first;
      add = *change_->second.add;
    }
    decoded_ = true;
  }
  return *value_;
}

ActiveFiles::const_iterator& ActiveFiles::const_iterator::operator++() {
  Advance();
  Settle();
  return *this;
}

void ActiveFiles::const_iterator::Advance() {
  decoded_ = false;
  if (from_ != From::kChange) ++base_pos_;
  if (from_ != From::kBase) ++change_;
}

// Moves to the next file that is there: the lesser key of the base's and
// the changes' next, skipping erasures and the base files they hide.
void ActiveFiles::const_iterator::Settle() {
  const Changes& changes = files_->changes_;
  for (;;) {
    const bool has_base = base_pos_ < order_->size();
    if (change_ == changes.end()) {
      from_ = From::kBase;
      return;
    }
    from_ = From::kChange;
    if (has_base) {
      const FileKeyView base_key = DecodeKey(files_->base_->Blob((*order_)[base_pos_]));
      const auto order = base_key <=> ViewOf(change_->first);
      if (order < 0) {
        from_ = From::kBase;
        return;
      }
      if (order == 0) from_ = From::kBoth;
    }
    if (change_->second.add) return;
    Advance();
  }
}

}  // namespace deltacommit
