// World: one schedule of the model checker (model_check.h): the shared
// in-memory ports of a mode, the actors, and what they observed. Internal to
// tests/model.
//
// Thread-safety: actors run one at a time (the Scheduler); what they record
// is locked anyway, so that TSan sees the hand-offs.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "deltacommit/log_store.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_coordination_table.h"
#include "deltacommit/testing/memory_object_store.h"
#include "model/model_check.h"
#include "model/model_ports.h"
#include "model/service_instance.h"

namespace deltacommit::model {

// A commit a writer was told landed.
struct Ack {
  std::string marker;  // the add path unique to the commit
  Version version = -1;
  bool exact = false;  // kCommitted at `version`; else already committed somewhere
};

class World {
 public:
  explicit World(const ScheduleOptions& options);
  ~World();
  ScheduleReport Run();

 private:
  // What one actor commits and reads through.
  struct Ports {
    std::unique_ptr<YieldingObjectStore> store;
    std::unique_ptr<ServiceInstance> instance;
    std::unique_ptr<LogStore> log;
  };
  Ports MakePorts(const std::string& name);
  void Problem(std::string text);

  // Actors (model_actors.cc).
  void CreateTable();
  void Writer(int w);
  void Reader(int r);
  void Recoverer();
  void Publisher(bool finish);
  void CheckVisible(LogStore& log, Version* last_seen);

  // After the run (model_invariants.cc).
  void CheckInvariants(ScheduleReport& report);
  void CheckLedger();
  void CheckEntries();
  void CheckRatified(Version latest);

  const ScheduleOptions options_;
  const std::string table_uri_;
  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  MemoryObjectStore memory_{clock_};
  WriteLedger ledger_;
  MemoryCoordinationTable ddb_;
  YieldingCoordinationTable ddb_yielding_{ddb_};
  YieldingStepHooks hooks_;
  service::StateStore* state_ = nullptr;  // the process's SQLite state store
  std::unique_ptr<YieldingStateStore> state_yielding_;
  std::unique_ptr<ModelStoreFactory> stores_;
  std::unique_ptr<ServiceShared> shared_;
  Scheduler scheduler_;

  std::mutex mu_;
  std::vector<Ack> acks_;               // guarded by mu_
  std::vector<std::string> problems_;   // guarded by mu_
};

}  // namespace deltacommit::model
