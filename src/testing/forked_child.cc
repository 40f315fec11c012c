#include "deltacommit/testing/forked_child.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>

namespace deltacommit::testing {

std::optional<std::string> OutputOfForkedChild(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (child == 0) {
    close(fds[0]);
    const std::string out = body();
    size_t written = 0;
    while (written < out.size()) {
      const ssize_t n = write(fds[1], out.data() + written, out.size() - written);
      if (n <= 0) _exit(1);
      written += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  std::array<char, 4096> buffer{};
  for (ssize_t n; (n = read(fds[0], buffer.data(), buffer.size())) > 0;) {
    out.append(buffer.data(), static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return std::nullopt;
  }
  return out;
}

}  // namespace deltacommit::testing
