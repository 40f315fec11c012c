// model_check: runs the model checker's schedules (docs/model-checking.md).
//   model_check [--mode M|all] [--schedules N] [--seed S] [--writers N]
//               [--commits N]
// Schedule i of a mode runs seed S + i. Each failing schedule prints its
// seed, what broke and the command that replays it; the exit status is 1
// when any failed, 2 on a bad argument.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_check.h"

namespace {

using deltacommit::model::Mode;

int Usage(const std::string& problem) {
  std::cerr << "model_check: " << problem << "\n"
            << "usage: model_check [--mode local|s3-conditional|s3-dynamodb|service|"
               "coordinated|all] [--schedules N] [--seed S] [--writers N] [--commits N]\n";
  return 2;
}

bool ParseNumber(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const std::string s(text);
  *out = std::strtoull(s.c_str(), &end, 10);
  return end != nullptr && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Mode> modes = deltacommit::model::AllModes();
  uint64_t schedules = 100, seed = 1, writers = 3, commits = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return Usage(std::string(flag) + " needs a value");
    const std::string_view value = argv[++i];
    if (flag == "--mode") {
      if (value == "all") continue;
      auto mode = deltacommit::model::ParseMode(value);
      if (!mode) return Usage("unknown mode \"" + std::string(value) + "\"");
      modes = {*mode};
    } else if (flag == "--schedules" || flag == "--seed" || flag == "--writers" ||
               flag == "--commits") {
      uint64_t* target = flag == "--schedules" ? &schedules
                         : flag == "--seed"    ? &seed
                         : flag == "--writers" ? &writers
                                               : &commits;
      if (!ParseNumber(value, target)) {
        return Usage(std::string(flag) + ": \"" + std::string(value) + "\" is not a number");
      }
    } else {
      return Usage("unknown flag " + std::string(flag));
    }
  }
  if (writers < 1 || writers > 16 || commits < 1 || commits > 16) {
    return Usage("--writers and --commits must be 1..16");
  }
  int failed = 0;
  for (Mode mode : modes) {
    const auto start = std::chrono::steady_clock::now();
    int64_t steps = 0, acked = 0, crashes = 0, lost = 0, failures = 0, mode_failed = 0;
    for (uint64_t i = 0; i < schedules; ++i) {
      deltacommit::model::ScheduleOptions options;
      options.mode = mode;
      options.seed = seed + i;
      options.writers = static_cast<int>(writers);
      options.commits_per_writer = static_cast<int>(commits);
      const deltacommit::model::ScheduleReport report = deltacommit::model::RunSchedule(options);
      steps += report.steps;
      acked += report.acknowledged;
      crashes += report.crashes;
      lost += report.lost_replies;
      failures += report.failures;
      if (report.ok()) continue;
      ++mode_failed;
      std::cout << "FAILED " << deltacommit::model::ModeName(mode) << " seed " << options.seed
                << ":\n";
      for (const std::string& problem : report.problems) std::cout << "  " << problem << "\n";
      std::cout << "  reproduce: " << deltacommit::model::ReproduceCommand(options) << "\n";
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-14s %llu schedules (seeds %llu..%llu), %lld failed, %.1f s: %lld steps, "
                "%lld commits acknowledged, %lld crashes, %lld lost replies, %lld failed calls\n",
                std::string(deltacommit::model::ModeName(mode)).c_str(),
                static_cast<unsigned long long>(schedules), static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(seed + schedules - 1),
                static_cast<long long>(mode_failed), seconds, static_cast<long long>(steps),
                static_cast<long long>(acked), static_cast<long long>(crashes),
                static_cast<long long>(lost), static_cast<long long>(failures));
    std::fflush(stdout);
    failed += static_cast<int>(mode_failed);
  }
  return failed == 0 ? 0 : 1;
}
