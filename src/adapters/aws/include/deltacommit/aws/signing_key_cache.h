// The SigV4 signing keys a process has derived, kept for reuse. Deriving a
// key takes four HMAC-SHA256s over the secret, the day, the region and the
// service; it was about 60% of the cost of signing a small request, and the
// key is the same for every request of that day, region and service.
//
// An entry is found by the SHA-256 of the secret, never the secret itself,
// with the day, region and service. Capacity bounds the entries (the commit
// service signs with the credentials of every writer it serves); the least
// recently used goes first. Keys are wiped when they leave.
//
// Thread-safety: safe to share; one mutex around the lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace deltacommit::aws {

class SigningKeyCache {
 public:
  explicit SigningKeyCache(size_t capacity);
  ~SigningKeyCache();
  SigningKeyCache(const SigningKeyCache&) = delete;
  SigningKeyCache& operator=(const SigningKeyCache&) = delete;

  // The signing key of `secret` on `date8` ("YYYYMMDD") for `region` and
  // `service`: derived on first use, then from the cache. The caller should
  // wipe its copy when done.
  std::string Key(std::string_view secret, std::string_view date8, std::string_view region,
                  std::string_view service);

  size_t size() const;
  // How many Key calls derived a key (the others were served from here).
  uint64_t derivations() const;

  // The cache SignRequest uses: 64 entries for the whole process.
  static SigningKeyCache& Shared();

 private:
  struct Entry {
    std::string id;   // SHA-256 of the secret, day, region and service
    std::string key;  // the derived signing key (raw bytes)
    uint64_t last_use = 0;
  };

  const size_t capacity_;
  mutable std::mutex mu_;
  uint64_t uses_ = 0;
  uint64_t derivations_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace deltacommit::aws
