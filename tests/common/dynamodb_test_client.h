// A DynamoDB client for the test server (dynalite, AWS_ENDPOINT_URL_DYNAMODB
// on loopback), with the HTTP client and credentials it signs with.
#pragma once

#include <memory>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/dynamodb/dynamodb_client.h"

namespace deltacommit::testing {

// REQUIRES: the DynamoDB test server is up (DC_REQUIRE_DYNAMODB); a bad
// environment is a test failure.
struct DynamoDbTestClient {
  DynamoDbTestClient();

  std::unique_ptr<aws::HttpClient> http;
  std::unique_ptr<aws::CredentialsProvider> credentials;
  std::unique_ptr<dynamodb::DynamoDbClient> client;
};

}  // namespace deltacommit::testing
