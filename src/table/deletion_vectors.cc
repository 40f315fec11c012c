#include "deltacommit/table/deletion_vectors.h"

#include <roaring/roaring.h>
#include <zlib.h>

#include <array>
#include <cctype>
#include <cstring>
#include <memory>

#include "deltacommit/commit_rules.h"
#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

constexpr std::string_view kZ85 =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
// RoaringBitmapArray's magic numbers: the portable format and Delta's native.
constexpr uint32_t kPortableMagic = 1681511377;
constexpr uint32_t kNativeMagic = 1681511376;
constexpr size_t kUuidChars = 20;  // a UUID's 16 bytes in Z85

// The digit of each Z85 character, -1 for characters outside the alphabet.
constexpr std::array<int, 256> Z85Digits() {
  std::array<int, 256> digits{};
  for (int& d : digits) d = -1;
  for (size_t i = 0; i < kZ85.size(); ++i) digits[static_cast<unsigned char>(kZ85[i])] = int(i);
  return digits;
}
constexpr std::array<int, 256> kZ85Digits = Z85Digits();

uint32_t LittleEndian32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t LittleEndian64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
void PutLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void PutBigEndian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

uint32_t Crc32(std::string_view data) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

uint32_t BigEndian32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

struct RoaringFree {
  void operator()(roaring_bitmap_t* r) const { roaring_bitmap_free(r); }
};

Status Corrupt(const std::string& what) {
  return InvalidArgumentError("corrupt deletion vector: " + what);
}

}  // namespace

StatusOr<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return InvalidArgumentError("Z85 text of " + std::to_string(text.size()) +
                                " characters: not a multiple of 5");
  }
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t value = 0;
    for (size_t j = i; j < i + 5; ++j) {
      const int digit = kZ85Digits[static_cast<unsigned char>(text[j])];
      if (digit < 0) {
        return InvalidArgumentError("Z85 text has a character outside the alphabet at " +
                                    std::to_string(j));
      }
      value = value * 85 + static_cast<uint64_t>(digit);
    }
    if (value > 0xffffffffULL) {
      return InvalidArgumentError("Z85 group at " + std::to_string(i) + " exceeds 32 bits");
    }
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xff);
  }
  return out;
}

std::string Z85Encode(std::string_view bytes) {
  std::string padded(bytes);
  padded.resize((bytes.size() + 3) / 4 * 4, '\0');
  std::string out;
  out.reserve(padded.size() / 4 * 5);
  for (size_t i = 0; i < padded.size(); i += 4) {
    uint32_t value = BigEndian32(padded.data() + i);
    char group[5];
    for (int j = 4; j >= 0; --j) {
      group[j] = kZ85[value % 85];
      value /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

StatusOr<std::string> DeletionVectorFileKey(const DeletionVectorDescriptor& dv) {
  const std::string& text = dv.path_or_inline_dv;
  if (dv.storage_type != "u" || text.size() < kUuidChars) {
    return InvalidArgumentError("deletion vector pathOrInlineDv \"" + text +
                                "\" is not a random prefix and a Z85 UUID (20 characters)");
  }
  const std::string_view prefix = std::string_view(text).substr(0, text.size() - kUuidChars);
  // The prefix becomes a folder of the table: letters and digits only, so
  // that it can name nothing outside it.
  for (const char c : prefix) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      return InvalidArgumentError("deletion vector pathOrInlineDv \"" + text +
                                  "\": its random prefix may hold letters and digits only");
    }
  }
  StatusOr<std::string> uuid = Z85Decode(std::string_view(text).substr(prefix.size()));
  if (!uuid.ok()) {
    return InvalidArgumentError("deletion vector pathOrInlineDv \"" + text +
                                "\": its UUID is not Z85: " + uuid.status().message());
  }
  return (prefix.empty() ? "" : std::string(prefix) + "/") + "deletion_vector_" + UuidText(*uuid) +
         ".bin";
}

namespace {

using Bucket = std::pair<uint32_t, std::unique_ptr<roaring_bitmap_t, RoaringFree>>;

// The 32-bit bitmap (Roaring's portable format) at `at`, at most `max`
// bytes; sets `size` to the bytes it takes.
StatusOr<std::unique_ptr<roaring_bitmap_t, RoaringFree>> Bitmap32(const char* at, size_t max,
                                                                  uint32_t key, size_t* size) {
  // CRoaring would print to stderr about a buffer too short for a header.
  *size = max < 8 ? 0 : roaring_bitmap_portable_deserialize_size(at, max);
  std::unique_ptr<roaring_bitmap_t, RoaringFree> bitmap(
      *size == 0 ? nullptr : roaring_bitmap_portable_deserialize_safe(at, *size));
  if (bitmap == nullptr) {
    return Corrupt("bucket " + std::to_string(key) +
                   " is not a Roaring bitmap in the portable format");
  }
  return bitmap;
}

// The portable format (the protocol's): a 64-bit bucket count, then each
// bucket's key and bitmap, keys ascending.
StatusOr<std::vector<Bucket>> PortableBuckets(std::string_view bytes) {
  if (bytes.size() < 12) return Corrupt(std::to_string(bytes.size()) + " bytes, no bucket count");
  const uint64_t count = LittleEndian64(bytes.data() + 4);
  size_t at = 12;
  // Each bucket takes a key and a bitmap of 8 bytes at least.
  if (count > (bytes.size() - at) / 12) {
    return Corrupt(std::to_string(count) + " buckets in " + std::to_string(bytes.size()) +
                   " bytes");
  }
  std::vector<Bucket> buckets;
  for (uint64_t b = 0; b < count; ++b) {
    if (bytes.size() - at < 4) return Corrupt("bucket " + std::to_string(b) + " cut short");
    const uint32_t key = LittleEndian32(bytes.data() + at);
    at += 4;
    if ((key & 0x80000000U) != 0) {
      return Corrupt("bucket key " + std::to_string(key) + " has its most significant bit set");
    }
    if (!buckets.empty() && key <= buckets.back().first) {
      return Corrupt("bucket keys not ascending (" + std::to_string(key) + " after " +
                     std::to_string(buckets.back().first) + ")");
    }
    size_t size = 0;
    DC_ASSIGN_OR_RETURN(auto bitmap, Bitmap32(bytes.data() + at, bytes.size() - at, key, &size));
    at += size;
    buckets.emplace_back(key, std::move(bitmap));
  }
  if (at != bytes.size()) {
    return Corrupt(std::to_string(bytes.size() - at) + " bytes after the last bucket");
  }
  return buckets;
}

// Delta's native format, which its readers accept too: a 32-bit count,
// then each bitmap's 32-bit size and the bitmap, the keys 0, 1, 2, ...
StatusOr<std::vector<Bucket>> NativeBuckets(std::string_view bytes) {
  if (bytes.size() < 8) return Corrupt(std::to_string(bytes.size()) + " bytes, no bucket count");
  const uint32_t count = LittleEndian32(bytes.data() + 4);
  size_t at = 8;
  if (count > 0x7fffffffU || count > (bytes.size() - at) / 12) {
    return Corrupt(std::to_string(count) + " buckets in " + std::to_string(bytes.size()) +
                   " bytes");
  }
  std::vector<Bucket> buckets;
  for (uint32_t key = 0; key < count; ++key) {
    if (bytes.size() - at < 4) return Corrupt("bucket " + std::to_string(key) + " cut short");
    const uint32_t stated = LittleEndian32(bytes.data() + at);
    at += 4;
    size_t size = 0;
    if (stated > bytes.size() - at) return Corrupt("bucket " + std::to_string(key) + " cut short");
    DC_ASSIGN_OR_RETURN(auto bitmap, Bitmap32(bytes.data() + at, stated, key, &size));
    if (size != stated) {
      return Corrupt("bucket " + std::to_string(key) + " takes " + std::to_string(size) +
                     " bytes, its size says " + std::to_string(stated));
    }
    at += size;
    buckets.emplace_back(key, std::move(bitmap));
  }
  if (at != bytes.size()) {
    return Corrupt(std::to_string(bytes.size() - at) + " bytes after the last bucket");
  }
  return buckets;
}

}  // namespace

StatusOr<std::vector<uint64_t>> DecodeRoaringBitmapArray(std::string_view bytes,
                                                         int64_t cardinality) {
  if (bytes.size() < 4) return Corrupt(std::to_string(bytes.size()) + " bytes, no magic number");
  const uint32_t magic = LittleEndian32(bytes.data());
  StatusOr<std::vector<Bucket>> buckets =
      magic == kPortableMagic ? PortableBuckets(bytes)
      : magic == kNativeMagic ? NativeBuckets(bytes)
                              : Corrupt("magic number " + std::to_string(magic) + ", neither " +
                                        std::to_string(kPortableMagic) + " (portable) nor " +
                                        std::to_string(kNativeMagic) + " (native)");
  if (!buckets.ok()) return buckets.status();
  uint64_t total = 0;
  for (const auto& [key, bitmap] : *buckets) total += roaring_bitmap_get_cardinality(bitmap.get());
  // Checked before the rows are listed: a bitmap of runs may hold billions.
  if (cardinality < 0 || total != static_cast<uint64_t>(cardinality)) {
    return Corrupt("it holds " + std::to_string(total) + " rows, its descriptor says " +
                   std::to_string(cardinality));
  }
  std::vector<uint64_t> rows;
  rows.reserve(total);
  std::vector<uint32_t> low;
  for (const auto& [key, bitmap] : *buckets) {
    low.resize(roaring_bitmap_get_cardinality(bitmap.get()));
    roaring_bitmap_to_uint32_array(bitmap.get(), low.data());
    for (const uint32_t v : low) {
      const uint64_t row = (uint64_t{key} << 32) | v;
      // CRoaring takes an array container whose values are out of order or
      // repeated (it checks no order): its rows would be too.
      if (!rows.empty() && row <= rows.back()) {
        return Corrupt("bucket " + std::to_string(key) + " lists row " + std::to_string(row) +
                       " after " + std::to_string(rows.back()) + ": rows must ascend");
      }
      rows.push_back(row);
    }
  }
  return rows;
}

std::string EncodeRoaringBitmapArray(const std::vector<uint64_t>& rows) {
  // Each bucket holds the rows sharing their high 32 bits, its key.
  std::vector<std::pair<uint32_t, std::unique_ptr<roaring_bitmap_t, RoaringFree>>> buckets;
  std::vector<uint32_t> low;
  for (size_t i = 0; i < rows.size();) {
    const auto key = static_cast<uint32_t>(rows[i] >> 32);
    low.clear();
    for (; i < rows.size() && static_cast<uint32_t>(rows[i] >> 32) == key; ++i) {
      low.push_back(static_cast<uint32_t>(rows[i]));
    }
    std::unique_ptr<roaring_bitmap_t, RoaringFree> bitmap(roaring_bitmap_create());
    roaring_bitmap_add_many(bitmap.get(), low.size(), low.data());
    roaring_bitmap_run_optimize(bitmap.get());
    buckets.emplace_back(key, std::move(bitmap));
  }
  std::string out;
  PutLittleEndian(out, kPortableMagic, 4);
  PutLittleEndian(out, buckets.size(), 8);
  for (const auto& [key, bitmap] : buckets) {
    PutLittleEndian(out, key, 4);
    const size_t at = out.size();
    out.resize(at + roaring_bitmap_portable_size_in_bytes(bitmap.get()));
    roaring_bitmap_portable_serialize(bitmap.get(), out.data() + at);
  }
  return out;
}

namespace {

// The 16 bytes of a UUID's canonical text.
std::string UuidBytes(std::string_view text) {
  std::string out;
  int high = -1;
  for (const char c : text) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) continue;
    const int digit = std::isdigit(static_cast<unsigned char>(c)) != 0
                          ? c - '0'
                          : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    if (high < 0) {
      high = digit;
    } else {
      out += static_cast<char>(high * 16 + digit);
      high = -1;
    }
  }
  return out;
}

}  // namespace

DeletionVectorFile::DeletionVectorFile(std::string_view uuid)
    : path_or_inline_dv_(Z85Encode(UuidBytes(uuid))),
      key_("deletion_vector_" + UuidText(UuidBytes(uuid)) + ".bin"),
      bytes_(1, '\1') {}

DeletionVectorDescriptor DeletionVectorFile::Add(const std::vector<uint64_t>& rows) {
  const std::string data = EncodeRoaringBitmapArray(rows);
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline_dv = path_or_inline_dv_;
  dv.offset = static_cast<int32_t>(bytes_.size());
  dv.size_in_bytes = static_cast<int32_t>(data.size());
  dv.cardinality = static_cast<int64_t>(rows.size());
  PutBigEndian32(bytes_, static_cast<uint32_t>(data.size()));
  bytes_ += data;
  PutBigEndian32(bytes_, Crc32(data));
  return dv;
}

StatusOr<std::string_view> DeletionVectorReader::FileBytes(const std::string& key) {
  auto it = files_.find(key);
  if (it == files_.end()) {
    DC_ASSIGN_OR_RETURN(std::string bytes, store_.Get(key));
    if (bytes.empty() || bytes[0] != 1) {
      return Corrupt("file " + key + " does not start with format version 1");
    }
    it = files_.emplace(key, std::move(bytes)).first;
  }
  return std::string_view(it->second);
}

StatusOr<std::string> DeletionVectorReader::StoredBytes(const DeletionVectorDescriptor& dv) {
  if (dv.size_in_bytes < 0) return Corrupt("sizeInBytes " + std::to_string(dv.size_in_bytes));
  const auto size = static_cast<size_t>(dv.size_in_bytes);
  if (dv.storage_type == "i") {
    DC_ASSIGN_OR_RETURN(std::string bytes, Z85Decode(dv.path_or_inline_dv));
    if (bytes.size() < size) {
      return Corrupt("inline data of " + std::to_string(bytes.size()) + " bytes, sizeInBytes " +
                     std::to_string(size));
    }
    bytes.resize(size);
    return bytes;
  }
  std::string key;
  if (dv.storage_type == "u") {
    DC_ASSIGN_OR_RETURN(key, DeletionVectorFileKey(dv));
  } else if (dv.storage_type == "p") {
    // The rule every commit's paths follow: inside the table, no "..".
    DC_ASSIGN_OR_RETURN(
        key, ActionPathKey(table_uri_, "deletionVector.pathOrInlineDv", dv.path_or_inline_dv));
  } else {
    return InvalidArgumentError("unknown deletion vector storage type \"" + dv.storage_type +
                                "\" (known: u, i, p)");
  }
  DC_ASSIGN_OR_RETURN(std::string_view file, FileBytes(key));
  const int64_t offset = dv.offset.value_or(0);
  if (offset < 0 || static_cast<uint64_t>(offset) + 8 + size > file.size()) {
    return Corrupt("offset " + std::to_string(offset) + " and sizeInBytes " + std::to_string(size) +
                   " run past the end of " + key + " (" + std::to_string(file.size()) + " bytes)");
  }
  const char* at = file.data() + offset;
  if (const uint32_t stored = BigEndian32(at); stored != size) {
    return Corrupt(key + " at offset " + std::to_string(offset) + " holds " +
                   std::to_string(stored) + " bytes, sizeInBytes says " + std::to_string(size));
  }
  const std::string_view data(at + 4, size);
  const uint32_t checksum = BigEndian32(at + 4 + size);
  const uint32_t computed = Crc32(data);
  if (checksum != computed) {
    return Corrupt(key + " at offset " + std::to_string(offset) + ": checksum " +
                   std::to_string(checksum) + " stored, " + std::to_string(computed) + " computed");
  }
  return std::string(data);
}

StatusOr<std::vector<uint64_t>> DeletionVectorReader::DeletedRows(
    const DeletionVectorDescriptor& dv, std::string_view data_file,
    std::optional<int64_t> num_records) {
  const std::string context =
      "data file " + std::string(data_file) + ", deletion vector " + dv.UniqueId();
  if (num_records && dv.cardinality > *num_records) {
    return Corrupt("it deletes " + std::to_string(dv.cardinality) + " rows of a file of " +
                   std::to_string(*num_records))
        .WithContext(context);
  }
  StatusOr<std::string> bytes = StoredBytes(dv);
  if (!bytes.ok()) return bytes.status().WithContext(context);
  StatusOr<std::vector<uint64_t>> rows = DecodeRoaringBitmapArray(*bytes, dv.cardinality);
  if (!rows.ok()) return rows.status().WithContext(context);
  return rows;
}

}  // namespace deltacommit
