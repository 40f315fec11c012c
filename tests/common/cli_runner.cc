#include "common/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>

extern char** environ;

namespace deltacommit::testing {
namespace {

std::vector<char*> Argv(const std::string& cli, const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(cli.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return argv;
}

}  // namespace

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string CliPath() {
  if (const char* p = std::getenv("DELTACOMMIT_CLI"); p != nullptr && *p != '\0') return p;
  return DELTACOMMIT_CLI_PATH;
}

CliResult RunCli(const std::vector<std::string>& args, const std::string& stdin_data) {
  return RunProgram(CliPath(), args, stdin_data);
}

// Output goes through temp files (not pipes) so a chatty child can never
// block on a full pipe while the test waits for it.
CliResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                     const std::string& stdin_data) {
  char dir_template[] = "/tmp/dc-cli-XXXXXX";
  std::string dir = mkdtemp(dir_template);
  const std::string in = dir + "/in", out = dir + "/out", err = dir + "/err";
  std::ofstream(in, std::ios::binary) << stdin_data;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  auto argv = Argv(program, args);
  pid_t pid = -1;
  CliResult result;
  if (posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  }
  posix_spawn_file_actions_destroy(&fa);
  result.out = Slurp(out);
  result.err = Slurp(err);
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  rmdir(dir.c_str());
  return result;
}

std::string AddLine(const std::string& path) {
  return "{\"add\":{\"path\":\"" + path +
         "\",\"partitionValues\":{},\"size\":100,\"modificationTime\":1,\"dataChange\":true}}\n";
}

pid_t StartCli(const std::vector<std::string>& args) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const std::string cli = CliPath();
  auto argv = Argv(cli, args);
  pid_t pid = -1;
  if (posix_spawn(&pid, cli.c_str(), &fa, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

}  // namespace deltacommit::testing
