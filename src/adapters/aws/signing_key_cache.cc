// See signing_key_cache.h.
#include "deltacommit/aws/signing_key_cache.h"

#include <openssl/crypto.h>

#include <algorithm>

#include "deltacommit/aws/sigv4.h"

namespace deltacommit::aws {
namespace {

void WipeKey(std::string& key) { OPENSSL_cleanse(key.data(), key.size()); }

// The secret enters only through its digest; the other parts are public.
std::string EntryId(std::string_view secret, std::string_view date8, std::string_view region,
                    std::string_view service) {
  std::string id = Sha256Hex(secret);
  for (std::string_view part : {date8, region, service}) {
    id += '\n';
    id += part;
  }
  return id;
}

}  // namespace

SigningKeyCache::SigningKeyCache(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

SigningKeyCache::~SigningKeyCache() {
  for (Entry& e : entries_) WipeKey(e.key);
}

std::string SigningKeyCache::Key(std::string_view secret, std::string_view date8,
                                 std::string_view region, std::string_view service) {
  const std::string id = EntryId(secret, date8, region, service);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Entry& e : entries_) {
      if (e.id == id) {
        e.last_use = ++uses_;
        return e.key;
      }
    }
  }
  // Derived outside the lock: two threads may both derive the same key
  // once, which costs less than making every other signer wait.
  std::string key = DeriveSigningKey(secret, date8, region, service);
  std::lock_guard<std::mutex> lock(mu_);
  ++derivations_;
  auto same = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.id == id; });
  if (same == entries_.end()) {
    if (entries_.size() >= capacity_) {
      auto oldest = std::min_element(
          entries_.begin(), entries_.end(),
          [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
      WipeKey(oldest->key);
      entries_.erase(oldest);
    }
    entries_.push_back({id, key, ++uses_});
  }
  return key;
}

size_t SigningKeyCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

uint64_t SigningKeyCache::derivations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return derivations_;
}

SigningKeyCache& SigningKeyCache::Shared() {
  // Never destroyed: a thread may still sign while the process exits.
  static SigningKeyCache* const shared = new SigningKeyCache(64);
  return *shared;
}

}  // namespace deltacommit::aws
