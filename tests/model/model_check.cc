#include "model/model_check.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <random>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/coordinated_log_store.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "deltacommit/logstore/service_log_store.h"
#include "model/model_world.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::model {
namespace {

constexpr char kDynamoDbTablePath[] = "s3a://bucket/model";

// One SQLite state store for the process, in a directory removed at exit;
// each schedule uses a table of its own. On tmpfs when there is one: its
// fsyncs cost nothing, and a schedule ratifies dozens of commits.
class ProcessStateStore {
 public:
  ProcessStateStore() {
    const std::filesystem::path base =
        std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    dir_ = base / ("dc-model-" + std::to_string(getpid()) + "-" + NewUuid());
    std::filesystem::create_directories(dir_);
    auto store = service::SqliteStateStore::Open({(dir_ / "state.db").string()});
    if (!store.ok()) {
      error_ = store.status();
      return;
    }
    store_ = std::move(store).value();
  }
  ~ProcessStateStore() {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  StatusOr<service::StateStore*> Get() {
    if (!store_) return error_;
    return static_cast<service::StateStore*>(store_.get());
  }

 private:
  std::filesystem::path dir_;
  Status error_;
  std::unique_ptr<service::SqliteStateStore> store_;
};

StatusOr<service::StateStore*> SharedStateStore() {
  static ProcessStateStore store;
  return store.Get();
}

std::string NewTableUri() {
  static std::atomic<int64_t> next{0};
  return "s3://bucket/model-" + std::to_string(getpid()) + "-" + std::to_string(next++);
}

bool UsesService(Mode mode) { return mode == Mode::kService || mode == Mode::kCoordinated; }

}  // namespace

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kLocal: return "local";
    case Mode::kS3Conditional: return "s3-conditional";
    case Mode::kS3DynamoDb: return "s3-dynamodb";
    case Mode::kService: return "service";
    case Mode::kCoordinated: return "coordinated";
  }
  return "?";
}

std::optional<Mode> ParseMode(std::string_view name) {
  for (Mode mode : AllModes()) {
    if (ModeName(mode) == name) return mode;
  }
  return std::nullopt;
}

std::vector<Mode> AllModes() {
  return {Mode::kLocal, Mode::kS3Conditional, Mode::kS3DynamoDb, Mode::kService,
          Mode::kCoordinated};
}

FaultPlan PlanFor(Mode mode, uint64_t seed) {
  // A stream of its own, so that the plan does not shift the schedule's.
  std::mt19937_64 rng(seed ^ 0x9E3779B97F4A7C15ULL);
  const auto pick = [&](std::initializer_list<double> values) {
    std::vector<double> v(values);
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  FaultPlan plan;
  plan.crash = pick({0.0, 0.01, 0.03});
  plan.max_crashes = static_cast<int>(std::uniform_int_distribution<int>(1, 2)(rng));
  // A local file system does not lose replies: a call returns or the
  // process dies.
  plan.lose_reply = mode == Mode::kLocal ? 0.0 : pick({0.0, 0.03, 0.1});
  plan.fail = pick({0.0, 0.03, 0.08});
  plan.delay = pick({0.0, 0.05, 0.15});
  plan.fault_steps = std::uniform_int_distribution<int64_t>(100, 600)(rng);
  return plan;
}

std::string ReproduceCommand(const ScheduleOptions& options) {
  return "model_check --mode " + std::string(ModeName(options.mode)) + " --seed " +
         std::to_string(options.seed) + " --writers " + std::to_string(options.writers) +
         " --commits " + std::to_string(options.commits_per_writer) + " --schedules 1";
}

ScheduleReport RunSchedule(const ScheduleOptions& options) {
  World world(options);
  return world.Run();
}

World::World(const ScheduleOptions& options)
    : options_(options),
      table_uri_(NewTableUri()),
      scheduler_(options.seed, FaultPlan{}, clock_) {
  if (options.broken_put_if_absent) ddb_yielding_.BreakPutIfAbsent();
  if (!UsesService(options.mode)) return;
  StatusOr<service::StateStore*> state = SharedStateStore();
  if (!state.ok()) {
    Problem("cannot open the SQLite state store: " + state.status().ToString());
    return;
  }
  state_ = *state;
  state_yielding_ = std::make_unique<YieldingStateStore>(*state_);
  stores_ = std::make_unique<ModelStoreFactory>(memory_, ledger_);
  auto shared = ServiceShared::Make(*state_yielding_, *stores_, hooks_, clock_);
  if (!shared.ok()) {
    Problem("cannot configure the service: " + shared.status().ToString());
    return;
  }
  shared_ = std::move(shared).value();
}

World::~World() = default;

void World::Problem(std::string text) {
  std::lock_guard lock(mu_);
  problems_.push_back(std::move(text));
}

World::Ports World::MakePorts(const std::string& name) {
  Ports ports;
  ports.store = std::make_unique<YieldingObjectStore>(memory_, ledger_, name);
  if (options_.broken_put_if_absent) ports.store->BreakPutIfAbsent();
  switch (options_.mode) {
    case Mode::kLocal:
    case Mode::kS3Conditional:
      ports.log = std::make_unique<ObjectStoreLogStore>(
          *ports.store, std::string(ModeName(options_.mode)), &hooks_);
      break;
    case Mode::kS3DynamoDb:
      ports.log = std::make_unique<S3DynamoDbLogStore>(
          *ports.store, ddb_yielding_, S3DynamoDbOptions{kDynamoDbTablePath}, clock_, &hooks_);
      break;
    case Mode::kService:
      ports.instance = std::make_unique<ServiceInstance>(*shared_);
      ports.log = std::make_unique<ServiceLogStore>(*ports.store, ports.instance->client(),
                                                    table_uri_, &hooks_);
      break;
    case Mode::kCoordinated:
      ports.instance = std::make_unique<ServiceInstance>(*shared_);
      ports.log = std::make_unique<CoordinatedLogStore>(*ports.store, ports.instance->client(),
                                                        table_uri_, &hooks_);
      break;
  }
  return ports;
}

ScheduleReport World::Run() {
  ScheduleReport report;
  if (UsesService(options_.mode) && !shared_) {
    report.problems = problems_;
    return report;
  }
  // Version 0 first, fault-free: the races of interest start after it.
  scheduler_.Spawn("create", [this] { CreateTable(); });
  scheduler_.Run();
  scheduler_.set_plan(PlanFor(options_.mode, options_.seed));
  for (int w = 0; w < options_.writers; ++w) {
    scheduler_.Spawn("writer-" + std::to_string(w), [this, w] { Writer(w); });
  }
  scheduler_.Spawn("reader", [this] { Reader(0); });
  if (options_.mode == Mode::kS3DynamoDb) {
    scheduler_.Spawn("recoverer", [this] { Recoverer(); });
  }
  if (UsesService(options_.mode)) {
    scheduler_.Spawn("publisher", [this] { Publisher(/*finish=*/false); });
  }
  scheduler_.Run();
  report.steps = scheduler_.steps();
  report.crashes = scheduler_.injected(Fault::kCrash);
  report.lost_replies =
      scheduler_.injected(Fault::kLoseReply) + scheduler_.injected(Fault::kLoseRequest);
  report.failures = scheduler_.injected(Fault::kFail);
  report.delays = scheduler_.delays();
  report.trace_hash = scheduler_.trace_hash();
  if (scheduler_.step_limit_hit()) {
    Problem("livelock: the actors were still running after " +
            std::to_string(scheduler_.steps()) + " steps");
  }
  // What a later process does: recover (s3-dynamodb), publish (service).
  scheduler_.set_plan(FaultPlan{});
  if (options_.mode == Mode::kS3DynamoDb) scheduler_.Spawn("finish", [this] { Recoverer(); });
  if (UsesService(options_.mode)) scheduler_.Spawn("finish", [this] { Publisher(true); });
  scheduler_.Run();
  CheckInvariants(report);
  return report;
}

}  // namespace deltacommit::model
