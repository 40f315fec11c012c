#include "shared/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace deltacommit::cli {

ProgressLine::ProgressLine(bool requested, bool quiet) {
  terminal_ = ::isatty(STDERR_FILENO) == 1;
  enabled_ = !quiet && (requested || terminal_);
}

void ProgressLine::Show(const std::string& step, const std::string& text) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool new_step = step != last_step_;
  const auto every = terminal_ ? std::chrono::milliseconds(250) : std::chrono::seconds(5);
  if (!new_step && now - last_ < every) return;
  last_step_ = step;
  last_ = now;
  if (terminal_) {
    // Carriage return and erase-line: the same line, rewritten.
    std::cerr << "\r\033[K" << text << std::flush;
    shown_ = true;
  } else {
    std::cerr << text << "\n";
  }
}

void ProgressLine::Clear() {
  if (!shown_) return;
  std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

std::string ProgressLine::Percent(double percent) {
  if (percent < 0) return "";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.0f%%", percent > 100 ? 100.0 : percent);
  return buffer;
}

std::string ProgressLine::Bytes(int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buffer;
}

}  // namespace deltacommit::cli
