#include "bench/writers.h"

#include "shared/self_process.h"

namespace deltacommit::cli {

StatusOr<std::vector<WriterOutput>> RunWriters(const WriterRun& run) {
  std::vector<pid_t> pids;
  std::vector<WriterOutput> outputs;
  for (int w = 0; w < run.writers; ++w) {
    const std::string base = run.out_prefix + "." + std::to_string(w);
    const std::string& table = run.tables[static_cast<size_t>(w) % run.tables.size()];
    outputs.push_back({table, base + ".jsonl", w});
    std::vector<std::string> args = {run.subcommand,    table,       "--writer",
                                     std::to_string(w), "--commits", std::to_string(run.commits),
                                     "--out",           base + ".jsonl"};
    args.insert(args.end(), run.options.begin(), run.options.end());
    args.insert(args.end(), run.extra.begin(), run.extra.end());
    if (run.remove_one) args.push_back("--remove-one");
    // As Delta writers do: else every snapshot load reads the whole log.
    if (run.checkpoint) args.push_back("--checkpoint");
    pids.push_back(Spawn(run.self, args, base + ".out", base + ".err"));
  }
  std::string failed;
  for (size_t w = 0; w < pids.size(); ++w) {
    const int rc = WaitForExit(pids[w]);
    if (rc == 0) continue;
    failed += "\n  writer " + std::to_string(w) + " on " + outputs[w].table + " (exit " +
              std::to_string(rc) + "): " +
              ReadChildOutput(run.out_prefix + "." + std::to_string(w) + ".err");
  }
  if (!failed.empty()) return UnavailableError(run.subcommand + " failed:" + failed);
  return outputs;
}

}  // namespace deltacommit::cli
