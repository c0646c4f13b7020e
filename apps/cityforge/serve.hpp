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
  std::string root;                ///< Viewer folder served at / (index.html); empty: none.
};

/// Serves until SIGINT or SIGTERM. Prints "http://HOST:PORT/" as the first line on stdout.
/// Returns 0 after a clean shutdown, 1 when the address cannot be bound (names the port), 2 for
/// a missing folder or one without city files.
int serve(const ServeOptions& options);

}  // namespace cityforge::app
