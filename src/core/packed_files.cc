#include "packed_files.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <utility>

namespace deltacommit::internal {

namespace {

constexpr size_t kMaxChunk = size_t{1} << 20;

uint64_t BigEndian(const unsigned char* bytes) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | bytes[i];
  return v;
}

// The index's size for `n` keys: a power of 2, at most 7/8 full.
size_t SlotsFor(size_t n) {
  size_t slots = 16;
  while (n * 8 > slots * 7) slots *= 2;
  return slots;
}

}  // namespace

uint32_t PackedFiles::Hash(const FileKeyView& key) {
  uint64_t h = std::hash<std::string_view>()(key.path);
  if (!key.dv_id.empty()) {
    h ^= std::hash<std::string_view>()(key.dv_id) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

uint32_t PackedFiles::Find(const FileKeyView& key, uint32_t hash) const {
  const size_t slot = SlotOf(key, hash);
  return slot == kNoSlot ? kNone : slots_[slot].id;
}

size_t PackedFiles::SlotOf(const FileKeyView& key, uint32_t hash) const {
  if (slots_.empty()) return kNoSlot;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.id == kNone) return kNoSlot;
    if (s.tag == hash && DecodeKey(Blob(s.id)) == key) return i;
  }
}

std::optional<PackedFiles::Old> PackedFiles::Put(const FileKeyView& key, uint32_t hash,
                                                 std::string_view blob, uint32_t batch) {
  const uint32_t found = Find(key, hash);
  if (found == kNone) {
    if ((live_ + 1) * 8 > slots_.size() * 7) Grow();
    const auto id = static_cast<uint32_t>(records_.size());
    records_.push_back({Store(blob), static_cast<uint32_t>(blob.size()), batch});
    Index(id, hash);
    ++live_;
    live_bytes_ += blob.size();
    Changed();
    return std::nullopt;
  }
  // A replacement keeps the record's id, and so its place in Order().
  Record& r = records_[found];
  const Old old{DecodeSize(Blob(found)), r.batch};
  dead_bytes_ += r.size;
  live_bytes_ += blob.size() - r.size;
  r = {Store(blob), static_cast<uint32_t>(blob.size()), batch};
  RepackIfWasteful();
  return old;
}

std::optional<PackedFiles::Old> PackedFiles::Remove(const FileKeyView& key, uint32_t hash) {
  const size_t slot = SlotOf(key, hash);
  if (slot == kNoSlot) return std::nullopt;
  Record& r = records_[slots_[slot].id];
  const Old old{DecodeSize({r.data, r.size}), r.batch};
  dead_bytes_ += r.size;
  live_bytes_ -= r.size;
  ++dead_records_;
  --live_;
  r = {nullptr, 0, 0};
  Unindex(slot);
  Changed();
  RepackIfWasteful();
  return old;
}

std::unique_ptr<PackedFiles> PackedFiles::Copy() const {
  auto out = std::make_unique<PackedFiles>();
  out->records_.reserve(live_);
  if (live_bytes_ > 0) out->NewChunk(live_bytes_);  // one chunk holds them all
  std::vector<uint32_t> new_ids(records_.size(), kNone);
  for (size_t id = 0; id < records_.size(); ++id) {
    const Record& r = records_[id];
    if (r.data == nullptr) continue;
    new_ids[id] = static_cast<uint32_t>(out->records_.size());
    out->records_.push_back({out->Store({r.data, r.size}), r.size, r.batch});
  }
  // The slots keep their keys' hashes: reindex without hashing again.
  out->slots_.resize(SlotsFor(live_));
  for (const Slot& s : slots_) {
    if (s.id != kNone) out->Index(new_ids[s.id], s.tag);
  }
  out->live_ = live_;
  out->live_bytes_ = live_bytes_;
  return out;
}

const std::vector<uint32_t>& PackedFiles::Order() const {
  if (order_ready_.load(std::memory_order_acquire)) return order_;
  std::lock_guard<std::mutex> lock(order_mu_);
  if (order_ready_.load(std::memory_order_relaxed)) return order_;
  std::vector<Sortable> entries;
  entries.reserve(live_);
  for (size_t id = 0; id < records_.size(); ++id) {
    if (records_[id].data != nullptr) entries.push_back({{}, static_cast<uint32_t>(id)});
  }
  SortByKey(entries.begin(), entries.end(), 0);
  order_.clear();
  order_.reserve(entries.size());
  for (const Sortable& e : entries) order_.push_back(e.id);
  order_ready_.store(true, std::memory_order_release);
  return order_;
}

// Sorting a million keys by comparing them where they are stored waits on
// memory at every comparison. Instead each round copies 32 bytes of each
// path, from `depth` on, into the entry (reading the records in the order
// they are stored, the first time), sorts by those as integers, and goes
// on only within runs that tie; runs whose paths all end within the bytes
// compared (so equal paths, or NUL bytes) are sorted by whole keys, which
// also orders deletion vector ids.
void PackedFiles::SortByKey(SortIt begin, SortIt end, size_t depth) const {
  if (end - begin < 2) return;
  constexpr size_t kBytes = sizeof(Sortable::prefix);
  bool longer = false;  // some path goes on past these bytes
  for (SortIt e = begin; e != end; ++e) {
    const std::string_view path = DecodeKey(Blob(e->id)).path;
    unsigned char bytes[kBytes] = {};
    if (path.size() > depth) {
      std::memcpy(bytes, path.data() + depth, std::min(kBytes, path.size() - depth));
    }
    for (size_t i = 0; i < std::size(e->prefix); ++i) e->prefix[i] = BigEndian(bytes + 8 * i);
    longer = longer || path.size() > depth + kBytes;
  }
  if (!longer) {
    std::sort(begin, end, [this](const Sortable& a, const Sortable& b) {
      return DecodeKey(Blob(a.id)) < DecodeKey(Blob(b.id));
    });
    return;
  }
  std::sort(begin, end, [](const Sortable& a, const Sortable& b) { return a.prefix < b.prefix; });
  for (SortIt run = begin; run != end;) {
    SortIt next = run + 1;
    while (next != end && next->prefix == run->prefix) ++next;
    SortByKey(run, next, depth + kBytes);
    run = next;
  }
}

const char* PackedFiles::Store(std::string_view blob) {
  if (blob.size() > free_left_) {
    if (blob.size() > kMaxChunk / 4) {
      // A chunk of its own, leaving the current one to fill.
      chunks_.emplace_back(new char[blob.size()]);
      std::memcpy(chunks_.back().get(), blob.data(), blob.size());
      return chunks_.back().get();
    }
    NewChunk(std::max(next_chunk_, blob.size()));
    next_chunk_ = std::min(next_chunk_ * 2, kMaxChunk);
  }
  char* at = free_;
  std::memcpy(at, blob.data(), blob.size());
  free_ += blob.size();
  free_left_ -= blob.size();
  return at;
}

// Left uninitialised: every byte handed out is written first.
void PackedFiles::NewChunk(size_t n) {
  chunks_.emplace_back(new char[n]);
  free_ = chunks_.back().get();
  free_left_ = n;
}

void PackedFiles::Index(uint32_t id, uint32_t hash) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].id != kNone) i = (i + 1) & mask;
  slots_[i] = {id, hash};
}

// Backward-shift deletion: the slots after `i` that would be found from
// before it move up, so a search never stops early at the hole.
void PackedFiles::Unindex(size_t i) {
  const size_t mask = slots_.size() - 1;
  for (size_t j = (i + 1) & mask; slots_[j].id != kNone; j = (j + 1) & mask) {
    const size_t home = slots_[j].tag & mask;
    if (((j - home) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{};
}

void PackedFiles::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<size_t>(16, old.size() * 2), Slot{});
  for (const Slot& s : old) {
    if (s.id != kNone) Index(s.id, s.tag);
  }
}

void PackedFiles::RepackIfWasteful() {
  const bool bytes = dead_bytes_ > live_bytes_ && dead_bytes_ > (size_t{1} << 16);
  const bool records = dead_records_ > live_ && dead_records_ > 1024;
  if (!bytes && !records) return;
  std::unique_ptr<PackedFiles> packed = Copy();
  records_ = std::move(packed->records_);
  slots_ = std::move(packed->slots_);
  chunks_ = std::move(packed->chunks_);
  free_ = packed->free_;
  free_left_ = packed->free_left_;
  dead_bytes_ = 0;
  dead_records_ = 0;
  Changed();
}

}  // namespace deltacommit::internal
