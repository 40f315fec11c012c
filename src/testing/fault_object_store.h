// FaultInjectingObjectStore: an ObjectStore decorator that makes the calls of
// a wrapped store fail, lose their reply, slow down or freeze, by rules a test
// installs, and counts calls of each kind (benchmarks read the counts).
//
// A rule matches calls of one kind whose key contains a substring (Copy: src
// or dst; List: the prefix) and fires on the nth..(nth+times-1)th of them.
// When several rules fire on one call they act in the order they were added:
// delays and freezes first as met, then the first kFail ends the call.
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "testing/forwarding_object_store.h"

namespace deltacommit {

enum class ObjectStoreOp {
  kGet,
  kHead,
  kList,
  kPutIfAbsent,
  kPut,
  kCopy,
  kDelete
};
inline constexpr size_t kObjectStoreOpCount = 7;

// "Get", "Head", ...
std::string_view ObjectStoreOpName(ObjectStoreOp op);

enum class FaultAction {
  kFail,                // return `status`; the wrapped store is not called
  kApplyThenDropReply,  // call the wrapped store, then return `status`
  kDelay,               // sleep `delay` on the injected Sleeper, then go on
  kFreeze,              // block until Release(), then go on (or fail)
};

struct FaultRule {
  static constexpr int64_t kEveryCall = -1;

  ObjectStoreOp op = ObjectStoreOp::kGet;
  std::string key_substring;  // empty matches every key
  int64_t nth = 1;            // first matching call it fires on, 1-based
  int64_t times = 1;  // matching calls it fires on from nth, or kEveryCall
  FaultAction action = FaultAction::kFail;
  // Result of kFail / kApplyThenDropReply. OK means the default: kUnavailable
  // for kFail, kUnknownOutcome for kApplyThenDropReply.
  Status status;
  std::chrono::milliseconds delay{0};  // kDelay only
};

class FaultInjectingObjectStore : public ForwardingObjectStore {
 public:
  using RuleId = int;

  // `base` and `sleeper` must outlive this object.
  explicit FaultInjectingObjectStore(ObjectStore& base,
                                     Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjectingObjectStore() override;

  RuleId AddRule(FaultRule rule);
  // Shorthands for AddRule.
  RuleId FailNthCall(ObjectStoreOp op, int64_t nth, Status status = OkStatus());
  RuleId FailEveryCall(ObjectStoreOp op, std::string key_substring,
                       Status status = OkStatus());
  RuleId DropReplyOnNthCall(ObjectStoreOp op, int64_t nth);
  RuleId DelayEveryCall(ObjectStoreOp op, std::chrono::milliseconds delay);
  RuleId FreezeNthCall(ObjectStoreOp op, int64_t nth,
                       std::string key_substring = {});
  // Removes every rule, releasing calls they froze.
  void ClearRules();

  // How many calls rule `id` has fired on.
  int64_t FiredCount(RuleId id) const;
  // Waits until `count` calls are frozen by rule `id` at once; false if
  // `timeout` (real time) passes first.
  bool WaitUntilFrozen(
      RuleId id, int64_t count = 1,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Thaws rule `id`: its frozen calls go on and it freezes no more. With a
  // non-OK `result` they return it without reaching the wrapped store, as if
  // the writer had crashed while frozen.
  void Release(RuleId id, Status result = OkStatus());

  // Calls received (including faulted ones) since construction or reset.
  int64_t CallCount(ObjectStoreOp op) const;
  int64_t TotalCallCount() const;
  void ResetCallCounts();

  StatusOr<std::string> Get(
      std::string_view key,
      std::optional<ByteRange> range = std::nullopt) override;
  StatusOr<ObjectMeta> Head(std::string_view key) override;
  StatusOr<std::vector<ObjectMeta>> List(
      std::string_view prefix, std::string_view start_after = {}) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status Copy(std::string_view src, std::string_view dst,
              bool if_absent) override;
  Status Delete(std::string_view key) override;

 private:
  struct RuleState;
  // What the rules decided for one call, after delays and freezes ran.
  struct Verdict {
    std::optional<Status> fail;        // return this, skip the call
    std::optional<Status> drop_reply;  // make the call, return this instead
  };

  std::vector<std::shared_ptr<RuleState>> Match(ObjectStoreOp op,
                                                std::string_view key,
                                                std::string_view other_key);
  std::optional<Status> Freeze(RuleState& state);
  Verdict Decide(ObjectStoreOp op, std::string_view key,
                 std::string_view other_key = {});
  template <typename Result, typename Call>
  Result Intercept(ObjectStoreOp op, std::string_view key,
                   std::string_view other_key, Call call);

  Sleeper& sleeper_;
  std::array<std::atomic<int64_t>, kObjectStoreOpCount> counts_{};
  mutable std::mutex mu_;
  std::condition_variable cv_;  // freeze state changes
  std::vector<std::shared_ptr<RuleState>>
      rules_;  // guarded by mu_; index = RuleId
};

}  // namespace deltacommit
