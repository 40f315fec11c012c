// Where the machine's CPU went during a phase: this bench process, the
// service, the S3 server (radosgw and its OSD), and everything else on the
// machine (other builds and tests: these machines are shared). Read from
// /proc; on a system without it every figure is 0.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace deltacommit::bench {

// CPU time in seconds.
struct CpuSample {
  double bench = 0;
  double serve = 0;
  double s3 = 0;
  double machine_busy = 0;  // all processes, all cores
  double machine_idle = 0;
};

// Cores busy on average between two samples `wall_seconds` apart.
struct CpuUse {
  double bench = 0, serve = 0, s3 = 0, others = 0, idle = 0;
};

class CpuMeter {
 public:
  // The S3 server's processes are those whose command line contains
  // `s3_marker` (the test servers' directory); none when it is empty.
  CpuMeter(pid_t serve, std::string s3_marker);

  CpuSample Sample() const;

 private:
  pid_t serve_;
  std::vector<pid_t> s3_pids_;
};

CpuUse Between(const CpuSample& before, const CpuSample& after,
               double wall_seconds);

}  // namespace deltacommit::bench
