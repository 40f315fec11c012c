#include "model/scheduler.h"

#include <cctype>
#include <limits>
#include <thread>
#include <utility>

namespace deltacommit::model {
namespace {

struct ActorContext {
  Scheduler* scheduler = nullptr;
  size_t index = 0;
};
thread_local ActorContext t_actor;

// True if `text` at `i` starts a UUID (8-4-4-4-12 hex digits).
bool UuidAt(std::string_view text, size_t i) {
  if (i + 36 > text.size()) return false;
  for (size_t k = 0; k < 36; ++k) {
    const char c = text[i + k];
    const bool dash = k == 8 || k == 13 || k == 18 || k == 23;
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string_view FaultName(Fault fault) {
  switch (fault) {
    case Fault::kNone: return "none";
    case Fault::kCrash: return "crash";
    case Fault::kLoseReply: return "lose-reply";
    case Fault::kLoseRequest: return "lose-request";
    case Fault::kFail: return "fail";
  }
  return "?";
}

Scheduler::Scheduler(uint64_t seed, FaultPlan plan, FakeClock& clock)
    : clock_(clock), plan_(plan), rng_(seed) {}

Scheduler::~Scheduler() = default;

Scheduler* Scheduler::Current() { return t_actor.scheduler; }

void Scheduler::Spawn(std::string name, std::function<void()> body) {
  actors_.push_back(Actor{std::move(name), std::move(body)});
}

bool Scheduler::Chance(double p) {
  // Always draw, so that the stream of draws does not depend on the plan.
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return u < p;
}


void Scheduler::Trace(std::string_view text) {
  // Temp and staged names carry random UUIDs: equal runs differ only there.
  std::string normal;
  for (size_t i = 0; i < text.size(); ++i) {
    if (UuidAt(text, i)) {
      normal += "<uuid>";
      i += 35;
    } else {
      normal += text[i];
    }
  }
  for (char c : normal) {
    trace_hash_ ^= static_cast<unsigned char>(c);
    trace_hash_ *= 1099511628211ULL;
  }
  trace_hash_ ^= 0xFF;
  trace_hash_ *= 1099511628211ULL;
}

void Scheduler::Run() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    running_ = true;
    current_ = actors_.size();  // nobody until the first pick
  }
  threads.reserve(actors_.size());
  for (size_t i = 0; i < actors_.size(); ++i) {
    threads.emplace_back([this, i] { ActorMain(i); });
  }
  {
    std::unique_lock lock(mu_);
    PickNextLocked();
    turn_cv_.wait(lock, [this] { return current_ == actors_.size(); });
    running_ = false;
  }
  for (std::thread& t : threads) t.join();
  actors_.clear();
}

void Scheduler::ActorMain(size_t index) {
  t_actor = ActorContext{this, index};
  {
    std::unique_lock lock(mu_);
    turn_cv_.wait(lock, [&] { return current_ == index; });
  }
  Trace("start " + actors_[index].name);
  actors_[index].body();
  Trace("end " + actors_[index].name);
  std::lock_guard lock(mu_);
  actors_[index].done = true;
  PickNextLocked();
  t_actor = ActorContext{};
}

void Scheduler::PickNextLocked() {
  std::vector<size_t> awake;
  size_t earliest = actors_.size();
  for (size_t i = 0; i < actors_.size(); ++i) {
    if (actors_[i].done) continue;
    if (actors_[i].sleep_until <= steps_) awake.push_back(i);
    if (earliest == actors_.size() || actors_[i].sleep_until < actors_[earliest].sleep_until) {
      earliest = i;
    }
  }
  if (step_limit_hit_ && !awake.empty()) {
    // Past the step limit: no more interleaving, each actor runs to its end.
    current_ = awake.front();
  } else if (!awake.empty()) {
    current_ = awake[std::uniform_int_distribution<size_t>(0, awake.size() - 1)(rng_)];
  } else {
    current_ = earliest;  // everyone asleep: time jumps to the first waking
  }
  turn_cv_.notify_all();
}

Fault Scheduler::DecideFault(Actor& me, bool mutates) {
  const bool on = steps_ <= plan_.fault_steps;
  if (Chance(on && crashes_ < plan_.max_crashes ? plan_.crash : 0.0)) {
    ++crashes_;
    me.dead = true;
    return Fault::kCrash;
  }
  if (Chance(on && mutates ? plan_.lose_reply : 0.0)) {
    return Chance(0.5) ? Fault::kLoseReply : Fault::kLoseRequest;
  }
  if (Chance(on ? plan_.fail : 0.0)) return Fault::kFail;
  return Fault::kNone;
}

Fault Scheduler::Yield(std::string_view point, bool mutates) {
  Actor& me = actors_[t_actor.index];
  if (me.dead) return Fault::kCrash;
  ++steps_;
  if (steps_ > plan_.max_steps) step_limit_hit_ = true;
  const Fault fault = DecideFault(me, mutates);
  ++injected_[static_cast<size_t>(fault)];
  Trace(me.name + " " + std::string(point) + " " + std::string(FaultName(fault)));
  if (fault == Fault::kCrash) return fault;  // it unwinds holding the turn
  if (Chance(steps_ <= plan_.fault_steps ? plan_.delay : 0.0)) {
    ++delays_;
    me.sleep_until = steps_ + std::uniform_int_distribution<int64_t>(1, 40)(rng_);
    clock_.Advance(std::chrono::milliseconds(
        std::uniform_int_distribution<int64_t>(1, 2000)(rng_)));
  }
  std::unique_lock lock(mu_);
  PickNextLocked();
  const size_t self = t_actor.index;
  turn_cv_.wait(lock, [&] { return current_ == self; });
  return fault;
}

bool Scheduler::CurrentDead() const { return actors_[t_actor.index].dead; }

const std::string& Scheduler::CurrentName() const { return actors_[t_actor.index].name; }

}  // namespace deltacommit::model
