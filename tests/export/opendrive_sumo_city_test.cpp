// SPDX-License-Identifier: Apache-2.0
// Issue 26's independent reading: the default city's OpenDRIVE export through SUMO's netconvert
// (an OpenDRIVE reader that is not ours), checked by tests/export/xodr_sumo_check.py: no
// netconvert errors, the same junctions (2%) and signalised junctions as lanes.json, 300 random
// trips with 90% arriving, and every vehicle lane of ours on a road where SUMO put it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "app/cli_run.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;
using clitest::CliRun;
using clitest::run_command;

bool have_sumo() {
  return run_command(
             "command -v netconvert && command -v sumo && command -v duarouter && "
             "command -v python3")
             .exit_code == 0;
}

// Set CITYFORGE_KEEP_SUMO=1 to keep the network, trips and SUMO outputs in the temp folder.
TEST(OpenDriveSumo, DefaultCityReadsAndDrivesInSumo) {
  if (!have_sumo()) {
    GTEST_SKIP() << "netconvert / sumo / duarouter / python3 not installed (Debian package "
                    "'sumo', see scripts/install-deps.sh)";
  }
  // The default city as the Tiles and MPI tests share it (made once per build).
  fs::path city;
  const CliRun gen = clitest::shared_city("default-tiles", clitest::kDefaultTilesArgs, &city);
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  const fs::path xodr = city / "opendrive" / "city.xodr";
  ASSERT_TRUE(fs::exists(xodr)) << "no " << xodr << ": the OpenDRIVE writer did not run";

  // The default city's map against the ASAM OpenDRIVE 1.4 XSD (offline copy, when present).
  const fs::path xsd = fs::path(CITYFORGE_SOURCE_DIR) / ".." / "shared" / "schemas" / "opendrive" /
                       "1.4" / "OpenDRIVE_1.4H.xsd";
  if (fs::exists(xsd) && run_command("command -v xmllint >/dev/null").exit_code == 0) {
    const CliRun v =
        run_command("xmllint --noout --schema '" + xsd.string() + "' '" + xodr.string() + "' 2>&1");
    EXPECT_EQ(v.exit_code, 0) << v.output.substr(0, 4000);
  } else {
    std::printf("[ xsd ] no ../shared/schemas/opendrive or no xmllint: the XSD is not checked\n");
  }
  const fs::path work = clitest::temp_dir("opendrive_sumo");
  const std::string script =
      (fs::path(CITYFORGE_SOURCE_DIR) / "tests" / "export" / "xodr_sumo_check.py").string();
  const CliRun check =
      run_command("python3 '" + script + "' '" + xodr.string() + "' --city-json '" +
                  (city / "opendrive" / "city.json").string() + "' --lanes-json '" +
                  (city / "lanes.json").string() + "' --work-dir '" + work.string() + "'");
  // The JSON summary (stdout) and the one-line progress (stderr), for the log either way.
  std::printf("[ xodr-sumo ] %s\n", check.output.c_str());
  EXPECT_EQ(check.exit_code, 0) << "see \"failed\" in the summary above; files in " << work;
  if (!testing::Test::HasFailure() && std::getenv("CITYFORGE_KEEP_SUMO") == nullptr) {
    fs::remove_all(work);
  }
}

}  // namespace
}  // namespace cityforge::exporter
