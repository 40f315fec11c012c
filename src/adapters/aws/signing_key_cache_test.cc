#include "deltacommit/aws/signing_key_cache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/aws/sigv4.h"

namespace deltacommit::aws {
namespace {

std::string Hex(const std::string& bytes) {
  std::string out;
  char buf[3];
  for (char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

// AWS's published example of deriving a signing key (the IAM service in
// us-east-1 on 15 February 2012).
TEST(DeriveSigningKeyTest, MatchesAwsPublishedExample) {
  EXPECT_EQ(Hex(DeriveSigningKey(kSecret, "20120215", "us-east-1", "iam")),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

TEST(SigningKeyCacheTest, DerivesOncePerSecretDayRegionAndService) {
  SigningKeyCache cache(8);
  const std::string key = cache.Key(kSecret, "20120215", "us-east-1", "iam");
  EXPECT_EQ(key, DeriveSigningKey(kSecret, "20120215", "us-east-1", "iam"));
  EXPECT_EQ(cache.Key(kSecret, "20120215", "us-east-1", "iam"), key);
  EXPECT_EQ(cache.derivations(), 1u);

  // Each part of the scope, and the secret, makes a key of its own.
  EXPECT_NE(cache.Key(kSecret, "20120216", "us-east-1", "iam"), key);
  EXPECT_NE(cache.Key(kSecret, "20120215", "eu-west-1", "iam"), key);
  EXPECT_NE(cache.Key(kSecret, "20120215", "us-east-1", "s3"), key);
  EXPECT_NE(cache.Key("another-secret", "20120215", "us-east-1", "iam"), key);
  EXPECT_EQ(cache.derivations(), 5u);
  EXPECT_EQ(cache.size(), 5u);
  EXPECT_EQ(cache.Key("another-secret", "20120215", "us-east-1", "iam"),
            DeriveSigningKey("another-secret", "20120215", "us-east-1", "iam"));
  EXPECT_EQ(cache.derivations(), 5u);
}

TEST(SigningKeyCacheTest, AFullCacheDropsTheLeastRecentlyUsedKey) {
  SigningKeyCache cache(2);
  cache.Key("a", "20240101", "us-east-1", "s3");
  cache.Key("b", "20240101", "us-east-1", "s3");
  cache.Key("a", "20240101", "us-east-1", "s3");  // "b" is now the oldest
  cache.Key("c", "20240101", "us-east-1", "s3");  // drops "b"
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.derivations(), 3u);
  cache.Key("a", "20240101", "us-east-1", "s3");
  EXPECT_EQ(cache.derivations(), 3u);
  EXPECT_EQ(cache.Key("b", "20240101", "us-east-1", "s3"),
            DeriveSigningKey("b", "20240101", "us-east-1", "s3"));
  EXPECT_EQ(cache.derivations(), 4u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(SigningKeyCacheTest, ThreadsSharingTheCacheGetTheDerivedKeys) {
  SigningKeyCache cache(4);
  const std::vector<std::string> regions = {"us-east-1", "eu-west-1", "ap-south-1"};
  std::vector<std::string> expected;
  for (const std::string& r : regions) {
    expected.push_back(DeriveSigningKey(kSecret, "20240101", r, "dynamodb"));
  }
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        const size_t r = static_cast<size_t>(i + t) % regions.size();
        if (cache.Key(kSecret, "20240101", regions[r], "dynamodb") != expected[r]) {
          ++wrong[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int w : wrong) EXPECT_EQ(w, 0);
  EXPECT_EQ(cache.size(), 3u);
  // A key may be derived by several threads at once, never again after.
  EXPECT_LE(cache.derivations(), 3u * 8u);
}

}  // namespace
}  // namespace deltacommit::aws
