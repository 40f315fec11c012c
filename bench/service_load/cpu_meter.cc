#include "service_load/cpu_meter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace deltacommit::bench {
namespace {

double TicksPerSecond() { return static_cast<double>(sysconf(_SC_CLK_TCK)); }

// utime + stime of a process (all its threads), in seconds; 0 if gone.
double ProcessSeconds(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces: count fields after its ')'.
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::atof(field.c_str());  // utime, stime
  }
  return ticks / TicksPerSecond();
}

std::string CommandLine(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/cmdline");
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

}  // namespace

CpuMeter::CpuMeter(pid_t serve, std::string s3_marker) : serve_(serve) {
  if (s3_marker.empty()) return;
  std::error_code ignored;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (CommandLine(name).find(s3_marker) != std::string::npos) {
      s3_pids_.push_back(static_cast<pid_t>(std::atoi(name.c_str())));
    }
  }
}

CpuSample CpuMeter::Sample() const {
  CpuSample s;
  s.bench = ProcessSeconds("self");
  s.serve = ProcessSeconds(std::to_string(serve_));
  for (pid_t pid : s3_pids_) s.s3 += ProcessSeconds(std::to_string(pid));
  // First line: cpu user nice system idle iowait irq softirq steal ...
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  double value = 0;
  for (int i = 0; i < 8 && in >> value; ++i) {
    (i == 3 || i == 4 ? s.machine_idle : s.machine_busy) +=
        value / TicksPerSecond();
  }
  return s;
}

CpuUse Between(const CpuSample& before, const CpuSample& after,
               double wall_seconds) {
  if (wall_seconds <= 0) return {};
  CpuUse use;
  use.bench = (after.bench - before.bench) / wall_seconds;
  use.serve = (after.serve - before.serve) / wall_seconds;
  use.s3 = (after.s3 - before.s3) / wall_seconds;
  const double busy = (after.machine_busy - before.machine_busy) / wall_seconds;
  use.others = std::max(0.0, busy - use.bench - use.serve - use.s3);
  use.idle = (after.machine_idle - before.machine_idle) / wall_seconds;
  return use;
}

}  // namespace deltacommit::bench
