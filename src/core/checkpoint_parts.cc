#include "deltacommit/core/checkpoint_parts.h"

#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/snapshot.h"

namespace deltacommit {
namespace {

// Spark's Murmur3_x86_32 steps, on unsigned words (Java ints wrap the same).
uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t MixK1(uint32_t k1) {
  k1 *= 0xcc9e2d51u;
  k1 = Rotl(k1, 15);
  return k1 * 0x1b873593u;
}

uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = Rotl(h1, 13);
  return h1 * 5 + 0xe6546b64u;
}

uint32_t Fmix(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  return h1 ^ (h1 >> 16);
}

// Spark's partitioning key of a checkpoint row: the file's path and its
// deletion vector's unique id (null without one, which hashing skips); null
// for every other action.
std::vector<std::optional<std::string>> PartitionKey(const Action& action) {
  auto of = [](const auto& file) {
    std::vector<std::optional<std::string>> key{file.path};
    if (file.deletion_vector) key.emplace_back(file.deletion_vector->UniqueId());
    return key;
  };
  if (const auto* add = std::get_if<AddFile>(&action)) return of(*add);
  if (const auto* remove = std::get_if<RemoveFile>(&action)) return of(*remove);
  return {std::nullopt};
}

std::set<FileKey> AddKeys(const std::vector<Action>& actions) {
  std::set<FileKey> keys;
  for (const Action& action : actions) {
    if (const auto* add = std::get_if<AddFile>(&action)) keys.insert(KeyOf(*add));
  }
  return keys;
}

// An existing part is kept only if it holds the add files ours would: then
// it was written from the same state by a writer partitioning as we do.
// (Removes may differ: expired tombstones depend on when it was written.)
Status CheckExistingPart(ObjectStore& store, ParquetHandler& parquet, const std::string& key,
                         const std::vector<Action>& ours) {
  DC_ASSIGN_OR_RETURN(std::vector<std::string> lines, parquet.ReadCheckpointActions(store, {key}));
  ActionParser parser;
  std::vector<Action> theirs;
  for (const std::string& line : lines) {
    auto action = parser.ParseLine(line);
    if (!action.ok()) return action.status().WithContext(key);
    theirs.push_back(std::move(action).value());
  }
  if (AddKeys(theirs) != AddKeys(ours)) {
    return FailedPreconditionError(
        "checkpoint part " + store.Describe() + " " + key +
        " exists (left by another writer) but holds other add files than this snapshot puts "
        "in that part; it is not replaced. Remove the incomplete set of parts, or checkpoint "
        "another version");
  }
  return OkStatus();
}

}  // namespace

int32_t SparkMurmur3(std::string_view bytes, int32_t seed) {
  uint32_t h1 = static_cast<uint32_t>(seed);
  const size_t aligned = bytes.size() - bytes.size() % 4;
  for (size_t i = 0; i < aligned; i += 4) {
    // Platform.getInt: little-endian (Spark reverses on big-endian hosts).
    uint32_t word = 0;
    for (size_t b = 0; b < 4; ++b) {
      word |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + b])) << (8 * b);
    }
    h1 = MixH1(h1, MixK1(word));
  }
  for (size_t i = aligned; i < bytes.size(); ++i) {
    // Platform.getByte: a signed byte, sign-extended.
    const auto half = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(bytes[i])));
    h1 = MixH1(h1, MixK1(half));
  }
  return static_cast<int32_t>(Fmix(h1, static_cast<uint32_t>(bytes.size())));
}

int32_t SparkHashPartition(const std::vector<std::optional<std::string>>& keys,
                           int32_t num_partitions) {
  int32_t hash = 42;
  for (const auto& key : keys) {
    if (key) hash = SparkMurmur3(*key, hash);
  }
  return ((hash % num_partitions) + num_partitions) % num_partitions;
}

int32_t CheckpointPartCount(int64_t file_actions, int64_t part_size) {
  if (part_size < 1 || file_actions <= part_size) return 1;
  return static_cast<int32_t>((file_actions + part_size - 1) / part_size);
}

std::vector<std::vector<Action>> SplitIntoParts(std::vector<Action> actions, int32_t num_parts) {
  std::vector<std::vector<Action>> parts(static_cast<size_t>(num_parts));
  for (Action& action : actions) {
    const int32_t part = SparkHashPartition(PartitionKey(action), num_parts);
    parts[static_cast<size_t>(part)].push_back(std::move(action));
  }
  return parts;
}

StatusOr<int64_t> WriteMultiPartCheckpoint(ObjectStore& store, ParquetHandler& parquet,
                                           Version version,
                                           const std::vector<std::vector<Action>>& parts) {
  const auto n = static_cast<int32_t>(parts.size());
  int32_t present = 0;
  for (int32_t i = 1; i <= n; ++i) {
    auto head = store.Head(MultiPartCheckpointPath(version, i, n));
    if (head.ok()) {
      ++present;
    } else if (!head.status().IsNotFound()) {
      return head.status();
    }
  }
  if (present == n) {
    return AlreadyExistsError("checkpoint " + store.Describe() + " " +
                              MultiPartCheckpointPath(version, 1, n) + " (all " +
                              std::to_string(n) + " parts) already exists (not replaced)");
  }
  int64_t bytes = 0;
  for (int32_t i = 1; i <= n; ++i) {
    const std::string key = MultiPartCheckpointPath(version, i, n);
    const std::vector<Action>& part = parts[static_cast<size_t>(i - 1)];
    auto written = parquet.WriteCheckpoint(store, key, part);
    if (written.ok()) {
      bytes += *written;
      continue;
    }
    if (!written.status().IsAlreadyExists()) return written.status();
    DC_RETURN_IF_ERROR(CheckExistingPart(store, parquet, key, part));
    DC_ASSIGN_OR_RETURN(ObjectMeta meta, store.Head(key));
    bytes += meta.size;
  }
  return bytes;
}

}  // namespace deltacommit
