// External oracle: tables written by delta-rs (the `deltalake` Python package) with appends,
// deletes, merges, optimize and overwrites. Our dry-run set must equal delta-rs's own full
// vacuum dry run, and after our real vacuum delta-rs must still load the table, read the same
// rows and show VACUUM START / VACUUM END in history(). Skipped when LAKESHORE_PYTHON (set by
// ctest) is unset or has no deltalake.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lakeshore/vacuum.h"

namespace lakeshore {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> Python() {
  const char* python = std::getenv("LAKESHORE_PYTHON");
  if (python == nullptr || *python == '\0') return std::nullopt;
  std::string probe = std::string(python) + " -c 'import deltalake' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) return std::nullopt;
  return std::string(python);
}

nlohmann::json RunOracle(const std::string& python, const std::string& args) {
  std::string script = (fs::path(__FILE__).parent_path() / "testdata" / "delta_rs_oracle.py").string();
  std::string command = python + " " + script + " " + args;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  int rc = ::pclose(pipe);
  if (rc != 0) throw std::runtime_error(command + " failed: " + out);
  return nlohmann::json::parse(out);
}

class DeltaRsOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(DeltaRsOracle, DryRunMatchesDeltaRsAndDeltaRsReadsTheResult) {
  auto python = Python();
  if (!python) GTEST_SKIP() << "LAKESHORE_PYTHON with deltalake not available";
  fs::path table = fs::temp_directory_path() / ("lakeshore_delta_rs_" + GetParam() + "_" + std::to_string(::getpid()));
  fs::remove_all(table);
  auto built = RunOracle(*python, "build " + table.string() + " " + GetParam());
  std::vector<std::string> theirs = built["dry_run"];
  ASSERT_FALSE(theirs.empty());

  VacuumOptions options;
  options.retain_hours = 0;
  options.enforce_retention = false;
  options.dry_run = true;
  auto dry = Vacuum(table.string(), options);
  ASSERT_TRUE(dry.ok()) << dry.status();
  std::vector<std::string> ours;
  for (const auto& c : dry->candidates) ours.push_back(c.path);
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(ours, theirs);

  options.dry_run = false;
  auto real = Vacuum(table.string(), options);
  ASSERT_TRUE(real.ok()) << real.status();
  EXPECT_EQ(real->files_deleted, static_cast<int64_t>(theirs.size()));
  EXPECT_TRUE(fs::exists(table / "_hidden_dir" / "keep.parquet"));

  auto checked = RunOracle(*python, "check " + table.string());
  EXPECT_EQ(checked["rows"], built["rows"]);
  std::vector<std::string> operations = checked["operations"];
  EXPECT_NE(std::find(operations.begin(), operations.end(), "VACUUM START"), operations.end());
  EXPECT_NE(std::find(operations.begin(), operations.end(), "VACUUM END"), operations.end());

  // Nothing changed since: an optimistic run skips without listing.
  options.optimistic = true;
  auto again = Vacuum(table.string(), options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->skipped) << again->skip_reason;
  fs::remove_all(table);
}

INSTANTIATE_TEST_SUITE_P(Tables, DeltaRsOracle, ::testing::Values("plain", "partitioned", "overwrite"));

}  // namespace
}  // namespace lakeshore
