// SPDX-License-Identifier: Apache-2.0
// The `serve` subcommand (apps/cityforge/serve.cpp): a static HTTP/1.1 server for a generated
// city folder and, optionally, the browser viewer's built files.
#pragma once

#include <cstdint>
#include <string>

namespace cityforge::app {

struct ServeOptions {
  std::string dir;                 ///< A `generate` output folder, served at /city/<path>.
  std::string host = "127.0.0.1";  ///< Interface to bind; loopback unless the user says so.
  int port = 8080;                 ///< 0: any free port (the chosen one is printed).
  /// Viewer folder served at / (index.html). Empty: $CITYFORGE_VIEWER when set ("none" or
  /// empty: no viewer), else the build's viewer/dist when it exists, else none.
  std::string root;
  // The live simulation (`--live`, docs/live.md): a WebSocket stream at /live.
  bool live = false;
  std::uint32_t vehicles = 2000;
  std::uint32_t pedestrians = 2000;
  std::uint64_t seed = 1;
  double speed = 1;  ///< Simulated seconds per wall second.
};

/// Serves until SIGINT or SIGTERM. Prints "http://HOST:PORT/" as the first line on stdout (with
/// --live once the simulation is built, then a line saying what runs). Returns 0 after a clean
/// shutdown, 1 when the address cannot be bound (names the port), 2 for a missing folder, one
/// without city files or (with --live) one whose simulation cannot be built.
int serve(const ServeOptions& options);

}  // namespace cityforge::app
