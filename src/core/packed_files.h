// Private to deltacommit_core: the store under ActiveFiles (active_files.h).
// Each file is one encoded AddFile (add_file_codec.h) in an arena of large
// chunks, a 16-byte record pointing at it, and a slot in an open-addressing
// hash index from its key to its record.
//
// Records keep their ids while the store is changed in place: a replaced
// file's new bytes go to the end of the arena and its record points at
// them; an erased one leaves its record empty. The bytes left behind are
// reclaimed by repacking once they outweigh the live ones.
//
// Order() gives the live records sorted by key, built on first use after a
// change; iteration in key order is what a snapshot's users see.
//
// Thread-safety: const members may be called from several threads at once
// (Order() builds under a lock); the mutating ones need exclusive use.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "add_file_codec.h"

namespace deltacommit::internal {

class PackedFiles {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // What Put or Remove found under the key before.
  struct Old {
    int64_t size;    // its AddFile's size
    uint32_t batch;  // the batch its Put gave
  };

  PackedFiles() = default;
  PackedFiles(const PackedFiles&) = delete;
  PackedFiles& operator=(const PackedFiles&) = delete;

  size_t size() const { return live_; }

  static uint32_t Hash(const FileKeyView& key);

  // The record of `key` (whose Hash is `hash`), or kNone.
  uint32_t Find(const FileKeyView& key, uint32_t hash) const;
  std::string_view Blob(uint32_t id) const { return {records_[id].data, records_[id].size}; }

  // Stores `blob` (an encoded AddFile keyed by `key`) with `batch`,
  // replacing what `key` held.
  std::optional<Old> Put(const FileKeyView& key, uint32_t hash, std::string_view blob,
                         uint32_t batch);
  std::optional<Old> Remove(const FileKeyView& key, uint32_t hash);

  // A packed copy: the live files only, in one chunk, with a fresh index.
  std::unique_ptr<PackedFiles> Copy() const;

  // The live records' ids, ascending by key.
  const std::vector<uint32_t>& Order() const;

 private:
  struct Record {
    const char* data;  // null once erased
    uint32_t size;
    uint32_t batch;
  };
  // A slot of the index: a record id (kNone: empty) and its key's Hash,
  // whose low bits place it and whose rest spares most key comparisons.
  struct Slot {
    uint32_t id = kNone;
    uint32_t tag = 0;
  };

  static constexpr size_t kNoSlot = SIZE_MAX;
  // A live record being sorted, with 32 bytes of its path as integers.
  struct Sortable {
    std::array<uint64_t, 4> prefix;
    uint32_t id;
  };
  using SortIt = std::vector<Sortable>::iterator;

  void SortByKey(SortIt begin, SortIt end, size_t depth) const;

  size_t SlotOf(const FileKeyView& key, uint32_t hash) const;
  const char* Store(std::string_view blob);
  void NewChunk(size_t n);
  void Index(uint32_t id, uint32_t hash);
  void Unindex(size_t slot);
  void Grow();
  void RepackIfWasteful();
  void Changed() { order_ready_.store(false, std::memory_order_relaxed); }

  std::vector<Record> records_;
  std::vector<Slot> slots_;  // a power of 2 in size, at most 7/8 full
  size_t live_ = 0;
  size_t live_bytes_ = 0;
  size_t dead_bytes_ = 0;  // bytes of replaced or erased files
  size_t dead_records_ = 0;

  // The arena: chunks that never move, filled from the back one.
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* free_ = nullptr;
  size_t free_left_ = 0;
  size_t next_chunk_ = 4096;

  mutable std::mutex order_mu_;
  mutable std::atomic<bool> order_ready_{false};
  mutable std::vector<uint32_t> order_;
};

}  // namespace deltacommit::internal
