// Scheduler: the model checker's deterministic cooperative scheduler
// (docs/model-checking.md). Each simulated writer, reader, recoverer or
// publisher is an actor on its own thread, but only one actor runs at a
// time: at every yield point (each port call of the wrapped stores, each
// StepHooks step) the running actor hands the turn to an actor the seeded
// PRNG picks. So one seed gives one interleaving, with no wall-clock in it.
//
// At a yield point the scheduler may also inject, by seeded choice:
//   crash       the actor dies there for good: this call and every later
//               one fail without reaching the store, so a dead actor has no
//               further effect (it unwinds holding the turn, then ends)
//   lose reply  a call that changes state takes effect, then reports
//               kUnknownOutcome
//   lose request  a call that changes state reports kUnknownOutcome and
//               never took effect (a timeout before it arrived: the caller
//               cannot tell the two apart)
//   fail        the call fails with kUnavailable without taking effect
//   delay       the actor is descheduled for a number of steps, and the
//               fake clock moves on
// Faults stop after FaultPlan::fault_steps steps, so that survivors finish.
//
// Thread-safety: Spawn and Run from one controlling thread; Yield and the
// accessors marked so from actors (the calling thread's actor is found
// through a thread-local pointer).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/testing/fake_clock.h"

namespace deltacommit::model {

enum class Fault { kNone, kCrash, kLoseReply, kLoseRequest, kFail };

std::string_view FaultName(Fault fault);

// Per-step probabilities of each fault, and how long they last.
struct FaultPlan {
  double crash = 0.0;
  double lose_reply = 0.0;  // only calls that change state
  double fail = 0.0;
  double delay = 0.0;
  int max_crashes = 1;
  int64_t fault_steps = 400;   // no faults after this many steps
  int64_t max_steps = 50'000;  // beyond: a livelock; actors run on in turn
};

class Scheduler {
 public:
  // `clock` (advanced by delays) must outlive this.
  Scheduler(uint64_t seed, FaultPlan plan, FakeClock& clock);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Adds an actor for the next Run().
  void Spawn(std::string name, std::function<void()> body);
  // Runs the spawned actors to their end, one at a time; then forgets them.
  void Run();
  void set_plan(const FaultPlan& plan) { plan_ = plan; }

  // The scheduler of the calling actor's thread; null outside actors (the
  // commit service's background threads, the controlling thread).
  static Scheduler* Current();

  // From an actor: a yield point named `point`. Picks the next actor to
  // run and returns when this one's turn comes back, with the fault for
  // the call made at this point. `mutates`: the call changes state (only
  // then can its reply be lost). A dead actor gets kCrash at once.
  Fault Yield(std::string_view point, bool mutates);
  // From an actor: whether it has crashed.
  bool CurrentDead() const;
  // From an actor: its name.
  const std::string& CurrentName() const;

  int64_t steps() const { return steps_; }
  bool step_limit_hit() const { return step_limit_hit_; }
  // Counts of injected faults, by Fault (index) and delays.
  int64_t injected(Fault fault) const { return injected_[static_cast<size_t>(fault)]; }
  int64_t delays() const { return delays_; }
  // FNV-1a over every (actor, point, fault) in order: equal for equal runs.
  uint64_t trace_hash() const { return trace_hash_; }

 private:
  struct Actor {
    std::string name;
    std::function<void()> body;
    bool done = false;
    bool dead = false;
    int64_t sleep_until = 0;  // step before which it is not picked
  };

  // REQUIRES: mu_ held. Hands the turn to the next actor (none: all done).
  void PickNextLocked();
  void ActorMain(size_t index);
  void Trace(std::string_view text);
  bool Chance(double p);
  Fault DecideFault(Actor& me, bool mutates);

  FakeClock& clock_;
  FaultPlan plan_;
  std::mt19937_64 rng_;
  mutable std::mutex mu_;
  std::condition_variable turn_cv_;
  std::vector<Actor> actors_;
  size_t current_ = 0;
  bool running_ = false;
  // Written only by the actor holding the turn.
  int64_t steps_ = 0;
  int crashes_ = 0;
  bool step_limit_hit_ = false;
  int64_t injected_[5] = {0, 0, 0, 0, 0};
  int64_t delays_ = 0;
  uint64_t trace_hash_ = 1469598103934665603ULL;
};

}  // namespace deltacommit::model
