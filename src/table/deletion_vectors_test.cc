// Deletion vectors as the protocol defines them: Z85, the paths of `u`
// DVs (the protocol's example), bitmaps built byte by byte from Roaring's
// format spec, a DV file written by Spark (a golden table), and every
// corruption named as such.
#include "deltacommit/table/deletion_vectors.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "deltacommit/testing/golden_dir.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using Rows = std::vector<uint64_t>;

DeletionVectorDescriptor Dv(std::string type, std::string text, std::optional<int32_t> offset,
                            int32_t size, int64_t cardinality) {
  DeletionVectorDescriptor dv;
  dv.storage_type = std::move(type);
  dv.path_or_inline_dv = std::move(text);
  dv.offset = offset;
  dv.size_in_bytes = size;
  dv.cardinality = cardinality;
  return dv;
}

std::string BigEndian(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// One DV framed as a DV file holds it: size, data, CRC-32.
std::string Framed(const std::string& data) {
  const auto crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
  return BigEndian(static_cast<uint32_t>(data.size())) + data + BigEndian(crc);
}

std::string LittleEndian(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// Rows 3, 4, 7, 11, 18 and 29 as one 32-bit Roaring bitmap in the portable
// format (RoaringFormatSpec): cookie 12346, one container, key 0 and
// cardinality - 1 = 5, its offset, then the six 16-bit values.
const std::string kBitmap32 = LittleEndian(12346, 4) + LittleEndian(1, 4) + LittleEndian(0, 2) +
                              LittleEndian(5, 2) + LittleEndian(16, 4) + LittleEndian(3, 2) +
                              LittleEndian(4, 2) + LittleEndian(7, 2) + LittleEndian(11, 2) +
                              LittleEndian(18, 2) + LittleEndian(29, 2);
const Rows kRows{3, 4, 7, 11, 18, 29};
// The same rows (+ 2^32 for the second bucket's) as a RoaringBitmapArray:
// the protocol's portable format (magic, 64-bit count, key + bitmap each)
// and Delta's native one (magic, 32-bit count, size + bitmap each).
const std::string kPortable =
    LittleEndian(1681511377, 4) + LittleEndian(1, 8) + LittleEndian(0, 4) + kBitmap32;
const std::string kPortableTwoBuckets = LittleEndian(1681511377, 4) + LittleEndian(2, 8) +
                                        LittleEndian(0, 4) + kBitmap32 + LittleEndian(1, 4) +
                                        kBitmap32;
const std::string kNative = LittleEndian(1681511376, 4) + LittleEndian(1, 4) +
                            LittleEndian(kBitmap32.size(), 4) + kBitmap32;
// (The protocol text's inline example is not used: its header is big
// endian, which Delta's own readers, reading little endian, refuse.)
const std::string kInline = Z85Encode(kPortable);
const Rows kInlineRows = kRows;

std::string InlineBytes() { return kPortable; }

TEST(Z85Test, TheZeroMqVectorBothWays) {
  const std::string bytes("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8);
  EXPECT_EQ(Z85Encode(bytes), "HelloWorld");
  EXPECT_EQ(Z85Decode("HelloWorld").value(), bytes);
  EXPECT_EQ(Z85Decode(Z85Encode("abc")).value(), std::string("abc\0", 4));  // padded
}

TEST(Z85Test, BadTextIsRefused) {
  EXPECT_NE(Z85Decode("Hell").status().message().find("not a multiple of 5"), std::string::npos);
  EXPECT_NE(Z85Decode("Hell\"").status().message().find("outside the alphabet"), std::string::npos);
  EXPECT_NE(Z85Decode("#####").status().message().find("exceeds 32 bits"), std::string::npos);
}

TEST(DeletionVectorFileKeyTest, TheProtocolsExampleWithAndWithoutPrefix) {
  EXPECT_EQ(DeletionVectorFileKey(Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6)).value(),
            "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  EXPECT_EQ(DeletionVectorFileKey(Dv("u", "^-aqEH.-t@S}K{vb[*k^", 4, 40, 6)).value(),
            "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
}

TEST(DeletionVectorFileKeyTest, APrefixCannotLeaveTheTable) {
  for (const std::string prefix : {"..", "a/", "%2E", "/"}) {
    auto key = DeletionVectorFileKey(Dv("u", prefix + "^-aqEH.-t@S}K{vb[*k^", 1, 1, 1));
    ASSERT_FALSE(key.ok()) << prefix;
    EXPECT_NE(key.status().message().find("letters and digits only"), std::string::npos);
  }
  EXPECT_FALSE(DeletionVectorFileKey(Dv("u", "short", 1, 1, 1)).ok());
}

TEST(RoaringBitmapArrayTest, PortableAndNativeFormats) {
  EXPECT_EQ(DecodeRoaringBitmapArray(kPortable, 6).value(), kRows);
  EXPECT_EQ(DecodeRoaringBitmapArray(kNative, 6).value(), kRows);
  Rows two = kRows;
  for (uint64_t r : kRows) two.push_back((uint64_t{1} << 32) + r);
  EXPECT_EQ(DecodeRoaringBitmapArray(kPortableTwoBuckets, 12).value(), two);
  // Keys must ascend.
  std::string swapped = kPortableTwoBuckets;
  swapped[12] = 1;
  EXPECT_NE(DecodeRoaringBitmapArray(swapped, 12).status().message().find("not ascending"),
            std::string::npos);
}

TEST(RoaringBitmapArrayTest, CorruptBitmapsAreNamed) {
  const std::string good = InlineBytes();
  std::string magic = good;
  magic[0] = 'x';
  EXPECT_NE(DecodeRoaringBitmapArray(magic, 6).status().message().find("magic number"),
            std::string::npos);
  EXPECT_NE(DecodeRoaringBitmapArray(good, 5).status().message().find(
                "it holds 6 rows, its descriptor says 5"),
            std::string::npos);
  EXPECT_NE(DecodeRoaringBitmapArray(good + "x", 6).status().message().find("after the last"),
            std::string::npos);
  EXPECT_FALSE(DecodeRoaringBitmapArray(good.substr(0, 30), 6).ok());
  EXPECT_FALSE(DecodeRoaringBitmapArray(good.substr(0, 8), 6).ok());
  std::string high_key = good;  // the one bucket's key: 0x80000000
  high_key[12 + 3] = static_cast<char>(0x80);
  std::string native_size = kNative;  // a bitmap size that disagrees
  native_size[8] = static_cast<char>(kBitmap32.size() - 2);
  EXPECT_NE(DecodeRoaringBitmapArray(native_size, 6)
                .status()
                .message()
                .find("bucket 0 is not a Roaring bitmap"),
            std::string::npos);
  native_size[8] = static_cast<char>(kBitmap32.size() + 2);
  EXPECT_NE(DecodeRoaringBitmapArray(native_size, 6).status().message().find("cut short"),
            std::string::npos);
  EXPECT_NE(DecodeRoaringBitmapArray(high_key, 6).status().message().find("most significant"),
            std::string::npos);
  // An array container whose values do not ascend (CRoaring does not check).
  std::string unordered = good;
  unordered[12 + 4 + 16] = 50;  // rows 50, 4, 7, ...: the first value, little endian
  EXPECT_NE(DecodeRoaringBitmapArray(unordered, 6).status().message().find("rows must ascend"),
            std::string::npos);
  std::string many = good;  // a bucket count the bytes cannot hold
  many[4] = static_cast<char>(0xff);
  EXPECT_NE(DecodeRoaringBitmapArray(many, 6).status().message().find("buckets in"),
            std::string::npos);
}

TEST(RoaringBitmapArrayTest, EncodesTheSpecsBytes) {
  EXPECT_EQ(EncodeRoaringBitmapArray(kRows), kPortable);
  Rows two = kRows;
  for (uint64_t r : kRows) two.push_back((uint64_t{1} << 32) + r);
  EXPECT_EQ(EncodeRoaringBitmapArray(two), kPortableTwoBuckets);
  EXPECT_EQ(EncodeRoaringBitmapArray({}), LittleEndian(1681511377, 4) + LittleEndian(0, 8));
}

TEST(RoaringBitmapArrayTest, RunsAndManyBucketsRoundTrip) {
  Rows rows;
  for (uint64_t r = 0; r < 100000; ++r) rows.push_back(r);  // one run
  for (uint64_t r = 0; r < 5000; r += 7) rows.push_back((uint64_t{3} << 32) + r);
  const std::string bytes = EncodeRoaringBitmapArray(rows);
  EXPECT_LT(bytes.size(), 2000u);  // the run is kept as a run, not 100,000 values
  EXPECT_EQ(DecodeRoaringBitmapArray(bytes, static_cast<int64_t>(rows.size())).value(), rows);
}

class DeletionVectorReaderTest : public ::testing::Test {
 protected:
  StatusOr<Rows> Read(const DeletionVectorDescriptor& dv) {
    return reader_.DeletedRows(dv, "part-0.parquet");
  }
  MemoryObjectStore store_;
  DeletionVectorReader reader_{store_, "s3://bucket/table"};
};

TEST_F(DeletionVectorReaderTest, InlineAndInAFileByUuidOrPath) {
  EXPECT_EQ(Read(Dv("i", kInline, std::nullopt, 44, 6)).value(), kInlineRows);
  // Two DVs in one file, the second at its offset.
  const std::string first = Framed(InlineBytes());
  ASSERT_TRUE(store_
                  .Put("ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin",
                       std::string(1, '\x01') + first + Framed(InlineBytes()))
                  .ok());
  const auto offset = static_cast<int32_t>(1 + first.size());
  EXPECT_EQ(Read(Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 1, 44, 6)).value(), kInlineRows);
  EXPECT_EQ(Read(Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", offset, 44, 6)).value(), kInlineRows);
  EXPECT_EQ(
      Read(Dv("p", "s3://bucket/table/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin",
              offset, 44, 6))
          .value(),
      kInlineRows);
}

TEST_F(DeletionVectorReaderTest, AFileWeWriteReadsBackAtEachOffset) {
  DeletionVectorFile file("d2c639aa-8816-431a-aaf6-d3fe2512ff61");
  EXPECT_TRUE(file.empty());
  const DeletionVectorDescriptor first = file.Add(kRows);
  const DeletionVectorDescriptor second = file.Add({0, 1, 2, 99});
  EXPECT_FALSE(file.empty());
  // The protocol's example UUID, as its example spells it.
  EXPECT_EQ(first.path_or_inline_dv, "^-aqEH.-t@S}K{vb[*k^");
  EXPECT_EQ(file.key(), "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  EXPECT_EQ(first.storage_type, "u");
  EXPECT_EQ(first.offset, 1);
  EXPECT_EQ(first.size_in_bytes, static_cast<int32_t>(kPortable.size()));
  EXPECT_EQ(first.cardinality, 6);
  EXPECT_EQ(file.bytes(), std::string(1, '\x01') + Framed(kPortable) +
                              Framed(EncodeRoaringBitmapArray({0, 1, 2, 99})));
  ASSERT_TRUE(store_.Put(file.key(), file.bytes()).ok());
  EXPECT_EQ(Read(first).value(), kRows);
  EXPECT_EQ(Read(second).value(), (Rows{0, 1, 2, 99}));
}

TEST_F(DeletionVectorReaderTest, ACardinalityAboveTheFilesRowsIsRefusedBeforeReading) {
  // No DV file exists: the bound is checked before anything is fetched.
  auto rows = reader_.DeletedRows(Dv("u", "^-aqEH.-t@S}K{vb[*k^", 1, 44, 6), "p.parquet", 5);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("it deletes 6 rows of a file of 5"), std::string::npos)
      << rows.status().ToString();
  EXPECT_EQ(Read(Dv("i", kInline, std::nullopt, 44, 6)).value(), kInlineRows);
  EXPECT_EQ(reader_.DeletedRows(Dv("i", kInline, std::nullopt, 44, 6), "p.parquet", 6).value(),
            kInlineRows);
}

TEST_F(DeletionVectorReaderTest, EveryCorruptionIsAnErrorNamingTheFile) {
  const std::string key = "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin";
  const std::string uuid = "^-aqEH.-t@S}K{vb[*k^";
  std::string flipped = Framed(InlineBytes());
  flipped[4 + 20] ^= 0x01;
  struct Case {
    std::string file;  // the DV file's bytes ("" : none)
    DeletionVectorDescriptor dv;
    std::string expected;
  } cases[] = {
      {"\x01" + flipped, Dv("u", uuid, 1, 44, 6), "checksum"},
      {"\x02" + Framed(InlineBytes()), Dv("u", uuid, 1, 44, 6), "format version 1"},
      {"\x01" + Framed(InlineBytes()), Dv("u", uuid, 30, 44, 6), "run past the end"},
      {"\x01" + Framed(InlineBytes()), Dv("u", uuid, 1, 43, 6), "sizeInBytes says 43"},
      {"", Dv("u", uuid, 1, 44, 6), "NotFound"},
      {"", Dv("x", uuid, 1, 44, 6), "unknown deletion vector storage type \"x\""},
      {"", Dv("p", "s3://bucket/other/" + key, 1, 44, 6), "outside the table"},
      {"", Dv("p", "s3://bucket/table/../other/" + key, 1, 44, 6), "must stay inside the table"},
      {"", Dv("p", "s3://bucket/table/%2E%2E/other/" + key, 1, 44, 6),
       "must stay inside the table"},
      {"", Dv("i", kInline, std::nullopt, 60, 6), "inline data of 44 bytes"},
      {"", Dv("i", "HelloWorld", std::nullopt, 8, 1), "magic number"},
  };
  for (const Case& c : cases) {
    MemoryObjectStore store;
    if (!c.file.empty()) {
      ASSERT_TRUE(store.Put(key, c.file).ok());
    }
    DeletionVectorReader reader(store, "s3://bucket/table");
    auto rows = reader.DeletedRows(c.dv, "p=1/part-0.parquet");
    ASSERT_FALSE(rows.ok()) << c.expected;
    const std::string message = rows.status().ToString();
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_NE(message.find("data file p=1/part-0.parquet"), std::string::npos) << message;
  }
}

// A DV file Spark wrote (golden table dv-partitioned-with-checkpoint): its
// version byte, frame and checksum as our reader expects them.
TEST(DeletionVectorGoldenTest, ASparkWrittenFileReads) {
  const auto golden = GoldenTablesDir();
  if (!golden) GTEST_SKIP() << GoldenTablesMissingMessage();
  const std::string dir = (*golden / "dv-partitioned-with-checkpoint").string();
  const auto dv = Dv("u", "0X9F0q2<2yJ-f)Gm2!e0", 1, 34, 1);
  const std::string key = DeletionVectorFileKey(dv).value();
  std::ifstream in(dir + "/" + key, std::ios::binary);
  ASSERT_TRUE(in) << dir << "/" << key;
  std::stringstream bytes;
  bytes << in.rdbuf();
  MemoryObjectStore store;
  ASSERT_TRUE(store.Put(key, bytes.str()).ok());
  DeletionVectorReader reader(store, "file://" + dir);
  auto rows = reader.DeletedRows(dv, "part=1/x.parquet");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 1u);
}

}  // namespace
}  // namespace deltacommit
