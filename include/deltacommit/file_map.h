// FileMap: a snapshot's map of files (active files, tombstones) keyed by
// FileKey, cheap to copy when a snapshot is carried forward by a few
// commits.
//
// A long-lived writer derives the snapshot of each new version from the one
// it holds. Copying a std::map of a million files for every commit would
// cost more than the commit; a FileMap instead shares an immutable base map
// and keeps the changes since it (added, replaced or erased keys) in a small
// delta. Compact() folds the delta into a new base once it outgrows a bound
// that grows with the square root of the base, so a copy is O(sqrt(n)) and
// folding is amortised. A map being built alone (a snapshot loaded from
// scratch, or just folded) is changed in place.
//
// map() gives the merged std::map, built once per FileMap on first use
// (the same order and contents as a plain map would have).
//
// Thread-safety: const members may be called from several threads at once
// (map() builds under a lock); the mutating ones need exclusive use.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace deltacommit {

// Whether `changes` kept beside a base of `base_size` entries are due to
// be folded into a new base: past 4 sqrt(base size), at least 64. Copies
// then cost O(sqrt(n)) and folding is amortised. FileMap and ActiveFiles
// (active_files.h) both fold by it.
inline bool DueToFold(size_t changes, size_t base_size) {
  const auto bound = static_cast<size_t>(4.0 * std::sqrt(static_cast<double>(base_size)));
  return changes > std::max<size_t>(64, bound);
}

template <typename Key, typename Value>
class FileMap {
 public:
  using Map = std::map<Key, Value>;

  FileMap() = default;
  FileMap(const FileMap& other) {
    std::lock_guard<std::mutex> lock(other.mu_);
    if (other.merged_ != nullptr) {
      base_ = other.merged_;  // already merged: share it, no delta to copy
    } else {
      base_ = other.base_;
      delta_ = other.delta_;
    }
    size_ = other.size_;
  }
  FileMap& operator=(const FileMap&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value of `key`, or null. Valid until the next change.
  const Value* Find(const Key& key) const {
    if (auto d = delta_.find(key); d != delta_.end()) return d->second ? &*d->second : nullptr;
    if (base_ == nullptr) return nullptr;
    auto b = base_->find(key);
    return b == base_->end() ? nullptr : &b->second;
  }

  // Sets `key` to `value`, calling `replaced(const Value&)` with the value
  // it replaces, if any. Returns the stored key, valid until the key is
  // erased or the map compacted.
  template <typename OnReplaced>
  const Key& InsertOrAssign(Key key, Value value, OnReplaced&& replaced) {
    if (Owned()) return InsertInPlace(std::move(key), std::move(value), replaced);
    if (const Value* old = Find(key)) {
      replaced(*old);
    } else {
      ++size_;
    }
    merged_ = nullptr;
    return delta_.insert_or_assign(std::move(key), std::optional<Value>(std::move(value)))
        .first->first;
  }

  // Removes `key`, calling `removed(const Value&)` with its value, if present.
  template <typename OnRemoved>
  void Erase(const Key& key, OnRemoved&& removed) {
    const Value* old = Find(key);
    if (old == nullptr) return;
    removed(*old);
    --size_;
    if (Owned()) {
      base_->erase(key);
      return;
    }
    merged_ = nullptr;
    if (base_ != nullptr && base_->count(key) > 0) {
      delta_.insert_or_assign(key, std::nullopt);
    } else {
      delta_.erase(key);
    }
  }

  // Folds the delta into a new base once it has outgrown 4 sqrt(base size)
  // (at least 64 entries). Invalidates the keys InsertOrAssign returned.
  void Compact() {
    if (!DueToFold(delta_.size(), base_ != nullptr ? base_->size() : 0)) return;
    base_ = Merged();
    delta_.clear();
    merged_ = nullptr;
  }

  // The merged map.
  const Map& map() const {
    if (delta_.empty()) return base_ != nullptr ? *base_ : Empty();
    std::lock_guard<std::mutex> lock(mu_);
    if (merged_ == nullptr) merged_ = Merged();
    return *merged_;
  }

 private:
  static const Map& Empty() {
    static const Map empty;
    return empty;
  }

  // InsertOrAssign on the base itself: one search of the tree, or none
  // when the keys come in ascending order (a checkpoint written from a
  // snapshot's map, a commit's adds named in order), which a load of a
  // million files inserts.
  template <typename OnReplaced>
  const Key& InsertInPlace(Key&& key, Value&& value, OnReplaced& replaced) {
    Map& m = *base_;
    if (m.empty() || m.rbegin()->first < key) {
      ++size_;
      return m.emplace_hint(m.end(), std::move(key), std::move(value))->first;
    }
    // try_emplace leaves key and value alone when the key is there.
    auto [it, inserted] = m.try_emplace(std::move(key), std::move(value));
    if (inserted) {
      ++size_;
    } else {
      replaced(it->second);
      it->second = std::move(value);
    }
    return it->first;
  }

  // Alone with its base, and no delta: change it in place.
  bool Owned() {
    if (base_ == nullptr) base_ = std::make_shared<Map>();
    return delta_.empty() && base_.use_count() == 1 && merged_ == nullptr;
  }

  std::shared_ptr<Map> Merged() const {
    auto merged = base_ != nullptr ? std::make_shared<Map>(*base_) : std::make_shared<Map>();
    for (const auto& [key, value] : delta_) {
      if (value) {
        merged->insert_or_assign(key, *value);
      } else {
        merged->erase(key);
      }
    }
    return merged;
  }

  std::shared_ptr<Map> base_;
  std::map<Key, std::optional<Value>> delta_;  // nullopt: erased from base_
  size_t size_ = 0;
  mutable std::mutex mu_;                // guards merged_
  mutable std::shared_ptr<Map> merged_;  // base_ + delta_, once asked for
};

}  // namespace deltacommit
