#include "common/dynamodb_test_client.h"

#include <gtest/gtest.h>

#include "deltacommit/aws/aws_config.h"

namespace deltacommit::testing {

DynamoDbTestClient::DynamoDbTestClient()
    : http(aws::NewCurlHttpClient()), credentials(aws::DefaultCredentialsChain({})) {
  aws::AwsConfigOverrides overrides;
  overrides.allow_http = true;  // the test server is on loopback
  auto service = aws::ResolveServiceConfig("dynamodb", overrides);
  if (!service.ok()) ADD_FAILURE() << service.status().ToString();
  client = std::make_unique<dynamodb::DynamoDbClient>(
      dynamodb::DynamoDbClientConfig{service.ok() ? *service : aws::AwsServiceConfig{}, {}},
      *http, *credentials);
}

}  // namespace deltacommit::testing
