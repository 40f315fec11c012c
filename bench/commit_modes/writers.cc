#include "commit_modes/writers.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "cli_runner.h"

namespace deltacommit::bench {
namespace {

// Forks the CLI with stdout to /dev/null and stderr to `err_path`.
pid_t Spawn(const std::vector<std::string>& args, const std::string& err_path) {
  const std::string cli = testing::CliPath();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(cli.c_str()));
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int null_fd = open("/dev/null", O_WRONLY);
  const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
  if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
  execv(cli.c_str(), argv.data());
  _exit(127);
}

}  // namespace

StatusOr<std::vector<std::string>> RunWriters(const WriterRun& run) {
  setenv("DELTACOMMIT_METER", "1", 1);  // inherited by the writers
  std::vector<pid_t> pids;
  std::vector<std::string> outs;
  for (int w = 0; w < run.writers; ++w) {
    const std::string base = run.out_prefix + "." + std::to_string(w);
    outs.push_back(base + ".jsonl");
    std::vector<std::string> args = {"demo-writer", run.table,
                                     "--writer",    std::to_string(w),
                                     "--commits",   std::to_string(run.commits),
                                     "--out",       outs.back()};
    args.insert(args.end(), run.options.begin(), run.options.end());
    if (run.remove_one) args.push_back("--remove-one");
    // As Delta writers do: else every snapshot load reads the whole log.
    args.push_back("--checkpoint");
    pids.push_back(Spawn(args, base + ".err"));
  }
  std::string failed;
  for (int w = 0; w < run.writers; ++w) {
    int status = 0;
    const pid_t pid = pids[static_cast<size_t>(w)];
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      failed +=
          "\nwriter " + std::to_string(w) + ": " +
          testing::Slurp(run.out_prefix + "." + std::to_string(w) + ".err");
    }
  }
  if (!failed.empty())
    return UnavailableError("demo-writer failed on " + run.table + ":" +
                            failed);
  return outs;
}

}  // namespace deltacommit::bench
