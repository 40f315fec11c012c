// Progress of a long `append` on stderr: on a terminal one line rewritten
// in place (at most 4 times a second); otherwise (--progress into a pipe or
// file) a line when the step changes, else at most every 5 seconds. Off
// unless stderr is a terminal or --progress asked for it; --quiet wins.
//
// Thread-safety: one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace deltacommit::cli {

class ProgressLine {
 public:
  // `requested`: --progress; `quiet`: --quiet.
  ProgressLine(bool requested, bool quiet);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }

  // Shows "<text>" (e.g. "input 1/2 big.csv: converting 45%"); `step` is
  // the part whose change is worth a line of its own off a terminal.
  void Show(const std::string& step, const std::string& text);

  // Erases the rewritten line (on a terminal), before ordinary output.
  void Clear();

  // "45%", or "" for an unknown (negative) percentage.
  static std::string Percent(double percent);
  // "12.3 MB".
  static std::string Bytes(int64_t bytes);

 private:
  bool enabled_ = false;
  bool terminal_ = false;
  bool shown_ = false;  // a terminal line is on screen
  std::string last_step_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace deltacommit::cli
