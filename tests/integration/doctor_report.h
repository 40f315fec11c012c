// Reading `deltacommit doctor --json` reports in the doctor suites.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"

namespace deltacommit::testing {

// The `doctor --json` report of `r`, checked to be one JSON object.
inline nlohmann::json DoctorReport(const CliResult& r) {
  nlohmann::json report = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(report.is_object()) << r.out << r.err;
  return report.is_object() ? report : nlohmann::json::object();
}

// The check named `name` in `report` (a failure, and status "<absent>",
// when there is none).
inline nlohmann::json DoctorCheck(const nlohmann::json& report, const std::string& name) {
  for (const nlohmann::json& c : report.value("checks", nlohmann::json::array())) {
    if (c["check"] == name) return c;
  }
  ADD_FAILURE() << "no check " << name << " in " << report.dump();
  return nlohmann::json{{"status", "<absent>"}, {"detail", ""}};
}

// Every check OK (or WARN where the test servers lack something harmless).
inline void ExpectDoctorAllPass(const nlohmann::json& report,
                                const std::vector<std::string>& may_warn = {}) {
  EXPECT_EQ(report["ok"], true) << report.dump(2);
  for (const nlohmann::json& c : report["checks"]) {
    bool warn_ok = std::find(may_warn.begin(), may_warn.end(), c["check"]) != may_warn.end();
    if (warn_ok && c["status"] == "WARN") continue;
    EXPECT_EQ(c["status"], "OK") << c.dump();
  }
}

}  // namespace deltacommit::testing
