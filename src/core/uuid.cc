// NewUuid: random (version 4) UUIDs for v2 checkpoints, staged commits and
// temp files, whose names must not collide between concurrent writers.

#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

// One engine per thread: no lock on the commit path, and no shared state for
// TSan to flag. Seeded from several random_device words because a single
// 32-bit seed would leave only 2^32 possible sequences across all writers.
// Seeded again in a forked child: a copy of its parent's engine would give
// it, and each of its siblings, the UUIDs its parent draws next (the same
// staged-commit names, temp files and writer appIds).
std::mt19937_64& ThreadEngine() {
  struct Engine {
    pid_t pid = 0;
    std::mt19937_64 engine;
  };
  thread_local Engine seeded;
  if (seeded.pid != getpid()) {
    std::random_device device;
    std::array<std::random_device::result_type, 8> words{};
    for (auto& word : words) word = device();
    std::seed_seq seed(words.begin(), words.end());
    seeded.engine.seed(seed);
    seeded.pid = getpid();
  }
  return seeded.engine;
}

// Appends hex digits [first, first + count) of `bits`, digit 0 being the most
// significant.
void AppendHex(std::string* out, uint64_t bits, size_t first, size_t count) {
  constexpr char kHexDigits[] = "0123456789abcdef";
  for (size_t i = first; i < first + count; ++i) {
    out->push_back(kHexDigits[(bits >> (60 - 4 * i)) & 0xF]);
  }
}

}  // namespace

std::string UuidText(std::string_view bytes) {
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    AppendHex(&out, static_cast<unsigned char>(bytes[i]), 14, 2);
  }
  return out;
}

std::string NewUuid() {
  std::mt19937_64& engine = ThreadEngine();
  uint64_t high = engine();
  uint64_t low = engine();
  // Version 4 in the top nibble of time_hi_and_version (hex digit 13).
  high = (high & ~uint64_t{0xF000}) | uint64_t{0x4000};
  // Variant 10xx in the top bits of clock_seq (hex digit 17).
  low = (low & ~(uint64_t{0x3} << 62)) | (uint64_t{0x2} << 62);

  // 8-4-4-4-12: the high word gives the first three groups, the low word
  // the last two.
  std::string uuid;
  uuid.reserve(36);
  AppendHex(&uuid, high, 0, 8);
  uuid.push_back('-');
  AppendHex(&uuid, high, 8, 4);
  uuid.push_back('-');
  AppendHex(&uuid, high, 12, 4);
  uuid.push_back('-');
  AppendHex(&uuid, low, 0, 4);
  uuid.push_back('-');
  AppendHex(&uuid, low, 4, 12);
  return uuid;
}

}  // namespace deltacommit
