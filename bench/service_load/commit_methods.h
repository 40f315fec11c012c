// The CommitMethods the bench compares for the same committers:
//  - through the commit service: POST /v1/commits in service mode (the
//    actions inline), rebasing on 409 from the latest_version it answers;
//  - through the commit service as appends: no version sent, the one the
//    service assigned taken from the answer (never a 409);
//  - straight to S3: the s3-conditional log store (PUT _delta_log/<v>.json
//    with If-None-Match: *), rebasing on a taken version by listing the log
//    after it, as a Delta writer does.
// Each method owns its own libcurl client, so each committer has its own
// connection.
#pragma once

#include <memory>
#include <string>

#include "deltacommit/service_wire/commit_body.h"
#include "service_load/committers.h"

namespace deltacommit::bench {

struct ServiceTarget {
  std::string commits_url;  // http://127.0.0.1:<port>/v1/commits
  std::string token;        // bearer token
  // The writer's keys, sent with each commit (the service signs its S3
  // calls with them), and the expiration stated for them (RFC 3339).
  service_wire::RequestCredentials credentials;
};

std::unique_ptr<CommitMethod> NewServiceCommitMethod(
    const ServiceTarget& target, const std::string& table);

// Blind appends through the service ("append": true, read_version 0): the
// service assigns the version, merging concurrent appends (group commit).
std::unique_ptr<CommitMethod> NewServiceAppendMethod(
    const ServiceTarget& target, const std::string& table);

// With the environment's endpoint and keys. When the table cannot be opened
// (a bad URI or environment) every attempt fails with that error.
std::unique_ptr<CommitMethod> NewDirectCommitMethod(const std::string& table);

}  // namespace deltacommit::bench
