// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "cityforge/core/result.hpp"

namespace cityforge {
class Ranks;
}

/// `cityforge serve` (docs/live.md): a static HTTP/1.1 server for a generated city folder and,
/// optionally, the browser viewer's built files, with the live simulation streamed over a
/// WebSocket at /live.
namespace cityforge::server {

struct ServeOptions {
  std::string dir;                 ///< A `generate` output folder, served at /city/<path>.
  std::string host = "127.0.0.1";  ///< Interface to bind; loopback unless the user says so.
  int port = 8080;                 ///< 0: any free port (the chosen one is printed).
  /// Viewer folder served at / (index.html). Empty: $CITYFORGE_VIEWER when set ("none" or
  /// empty: no viewer), else `built_root` when it is a folder, else none.
  std::string root;
  /// The viewer this program was built with (its viewer/dist); may be empty or missing.
  std::string built_root;
  // The live simulation (`--live`, docs/live.md): a WebSocket stream at /live.
  bool live = false;
  std::uint32_t vehicles = 2000;
  std::uint32_t pedestrians = 2000;
  std::uint64_t seed = 1;
  double speed = 1;  ///< Simulated seconds per wall second. [Limit: (0, 16]]
  /// A driving-study scenario file (docs/scenarios.md; needs `live`). Checked against the city
  /// before anything starts; its seed, traffic, weather and time of day set the live
  /// simulation's (over vehicles, pedestrians and seed), and it is served at /scenario.json.
  std::string scenario;
  /// Under mpirun (with `live` only): the ranks the live simulation is shared over. Rank 0
  /// serves and streams; the others tick with it and serve nothing (docs/live.md, "Over MPI
  /// ranks"). serve() is then collective, and an error on any rank is every rank's.
  const Ranks* ranks = nullptr;
};

/// Serves until SIGINT or SIGTERM. Writes "http://HOST:PORT/" as the first line to `out` (with
/// --live once the simulation is built), then a line saying what runs and one saying what is
/// served, and "serve: stopped" after a clean shutdown (Ok). Errors, before anything is served
/// (their text is whole without a place): invalid_input for a missing folder, one without city
/// files, a viewer root that is not a folder, a host that is not an IP address, a scenario
/// without --live or one that load_scenario refuses ("<file>: <JSON pointer>: expected ...")
/// or (with --live) a city whose simulation cannot be built; io when the address cannot be
/// bound (names the port). Over ranks, only rank 0 writes to `out`; the others return when
/// rank 0 stops.
Status serve(const ServeOptions& options, std::ostream& out);

}  // namespace cityforge::server
