// SigV4 signing of the requests a commit makes: an S3 PUT of the commit
// file with If-None-Match (payload hashed), an S3 LIST of the log, and a
// DynamoDB PutItem. Each iteration builds the request as the adapters do
// (the signer adds its headers to a fresh request every attempt).
#include <benchmark/benchmark.h>

#include <string>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/signing_key_cache.h"
#include "deltacommit/aws/sigv4.h"

namespace deltacommit::aws {
namespace {

Credentials SessionCredentials() {
  Credentials c;
  c.access_key_id = "ASIAEXAMPLEKEY123456";
  c.secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  c.session_token = std::string(600, 'T');  // STS tokens are several hundred bytes
  c.source = "bench";
  return c;
}

void Sign(benchmark::State& state, const HttpRequest& prototype, const char* service) {
  const Credentials credentials = SessionCredentials();
  SigningParams params;
  params.region = "eu-west-1";
  params.service = service;
  params.now_ms = 1705312800123;
  for (auto _ : state) {
    HttpRequest request = prototype;
    SignRequest(request, credentials, params);
    benchmark::DoNotOptimize(request);
  }
  if (!prototype.body.empty()) {  // the payload is hashed: its bytes/s
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(prototype.body.size()));
  }
}

// PUT of a commit file of range(0) bytes (hashed into the signature).
void BM_SignS3PutCommit(benchmark::State& state) {
  HttpRequest request;
  request.method = "PUT";
  request.url = "https://bucket.s3.eu-west-1.amazonaws.com/tables/sales/_delta_log/"
                "00000000000000001234.json";
  request.headers = {{"If-None-Match", "*"}, {"Content-Type", "application/json"}};
  request.body.assign(static_cast<size_t>(state.range(0)), 'x');
  Sign(state, request, "s3");
}

void BM_SignS3ListLog(benchmark::State& state) {
  HttpRequest request;
  request.url = "https://bucket.s3.eu-west-1.amazonaws.com/?list-type=2&prefix=tables%2Fsales%2F"
                "_delta_log%2F&start-after=tables%2Fsales%2F_delta_log%2F00000000000000001230";
  Sign(state, request, "s3");
}

void BM_SignDynamoDbPutItem(benchmark::State& state) {
  HttpRequest request;
  request.method = "POST";
  request.url = "https://dynamodb.eu-west-1.amazonaws.com/";
  request.headers = {{"Content-Type", "application/x-amz-json-1.0"},
                     {"X-Amz-Target", "DynamoDB_20120810.PutItem"}};
  request.body =
      R"({"TableName":"delta_log","Item":{"tablePath":{"S":"s3://bucket/tables/sales"},)"
      R"("fileName":{"S":"00000000000000001234.json"},"tempPath":{"S":".tmp/)"
      R"(00000000000000001234.json.0b7c2f3e-5d1a-4c8b-9e6f-2a4d8c1b7e90"},"complete":)"
      R"j({"S":"false"}},"ConditionExpression":"attribute_not_exists(fileName)"})j";
  Sign(state, request, "dynamodb");
}

// The signing key alone: derived afresh (four HMACs, what every request
// paid before the cache) against a hit in SigningKeyCache (a SHA-256 of the
// secret and a lookup), which SignRequest now uses.
void BM_SigningKeyDerived(benchmark::State& state) {
  const Credentials credentials = SessionCredentials();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        DeriveSigningKey(credentials.secret_access_key, "20240115", "eu-west-1", "s3"));
  }
}

void BM_SigningKeyCached(benchmark::State& state) {
  const Credentials credentials = SessionCredentials();
  SigningKeyCache cache(64);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        cache.Key(credentials.secret_access_key, "20240115", "eu-west-1", "s3"));
  }
}

BENCHMARK(BM_SignS3PutCommit)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_SigningKeyDerived);
BENCHMARK(BM_SigningKeyCached);
BENCHMARK(BM_SignS3ListLog);
BENCHMARK(BM_SignDynamoDbPutItem);

}  // namespace
}  // namespace deltacommit::aws
