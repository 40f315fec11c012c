// The status code of every commit outcome and refusal, and what its body
// carries (docs/api.md; the bytes are service_wire's, tested there).
#include "service/api/replies.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace deltacommit::service {
namespace {

TEST(ServeRepliesTest, EveryOutcomeHasItsDocumentedStatus) {
  const std::pair<CommitOutcome, int> expected[] = {
      {CommitOutcome::kOk, 200},
      {CommitOutcome::kVersionTaken, 409},
      {CommitOutcome::kVersionAhead, 409},
      {CommitOutcome::kBadRequest, 400},
      {CommitOutcome::kTooLarge, 413},
      {CommitOutcome::kCredentialsInvalid, 422},
      {CommitOutcome::kCredentialsRejected, 424},
      {CommitOutcome::kUnavailable, 503},
      {CommitOutcome::kLogInconsistent, 500},
  };
  for (auto [outcome, status] : expected) {
    EXPECT_EQ(HttpStatusFor(outcome), status) << CommitOutcomeName(outcome);
  }
}

TEST(ServeRepliesTest, ConflictsCarryTheLatestVersion) {
  http::Response taken = CommitReplyResponse(CommitReply::VersionTaken(9, "taken"));
  EXPECT_EQ(taken.status, 409);
  EXPECT_EQ(nlohmann::json::parse(taken.body),
            nlohmann::json::parse(
                R"({"error":{"code":"version_taken","message":"taken","latest_version":9}})"));
  http::Response bad = CommitReplyResponse(
      CommitReply::Error(CommitOutcome::kBadRequest, "line 2: not an action"));
  EXPECT_FALSE(nlohmann::json::parse(bad.body)["error"].contains("latest_version"));
}

TEST(ServeRepliesTest, RejectedCredentialsCarryTheirReason) {
  CommitReply denied = CommitReply::Error(CommitOutcome::kCredentialsRejected, "AccessDenied");
  denied.reason = "access_denied";
  http::Response answer = CommitReplyResponse(denied);
  EXPECT_EQ(answer.status, 424);
  EXPECT_EQ(nlohmann::json::parse(answer.body),
            nlohmann::json::parse(R"({"error":{"code":"credentials_rejected",)"
                                  R"("message":"AccessDenied","reason":"access_denied"}})"));
}

TEST(ServeRepliesTest, OkBody) {
  http::Response ok = CommitReplyResponse(CommitReply::Ok(7, false));
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(nlohmann::json::parse(ok.body),
            nlohmann::json::parse(R"({"version":7,"published":false})"));
}

TEST(ServeRepliesTest, StatusesBeforeTheCommitLogic) {
  EXPECT_EQ(ErrorFor(InvalidArgumentError("x")).status, 400);
  EXPECT_EQ(ErrorFor(UnauthenticatedError("x")).body.code, "unauthenticated");
  EXPECT_EQ(ErrorFor(PermissionDeniedError("x")).status, 403);
  EXPECT_EQ(ErrorFor(UnavailableError("x")).status, 503);
  EXPECT_EQ(ErrorFor(InternalError("x")).status, 500);
  http::Response unauthenticated = ErrorAnswer(ErrorFor(UnauthenticatedError("no token")));
  EXPECT_EQ(unauthenticated.headers.back(),
            std::make_pair(std::string("WWW-Authenticate"),
                           std::string("Bearer realm=\"deltacommit\"")));
  http::Response unavailable = ErrorAnswer(ErrorFor(UnavailableError("down")));
  EXPECT_EQ(unavailable.headers.back(),
            std::make_pair(std::string("Retry-After"), std::string("1")));
}

}  // namespace
}  // namespace deltacommit::service
