// SPDX-License-Identifier: Apache-2.0
// Fuzz target for lanes.json (parse_lanes_json, then build_network's checks: successors,
// conflicts, signal plans), what `simulate` and `serve --live` read. Driver: fuzz_driver.hpp.
#include <string>

#include "cityforge/traffic/network.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"lanes_json", {"tests/fuzz/corpus/lanes_json"}, {}, json_tokens(), 20000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Result<traffic::LanesFile> f = traffic::parse_lanes_json(text, "fuzz.json");
  if (!f) {
    fuzz::check_error(f.error(), "fuzz.json");
    return 0;
  }
  Result<traffic::Network> net = traffic::build_network(f->graph, f->controls);
  if (!net && net.error().message.empty()) fuzz::broken("a network error without a message");
  if (net) fuzz::accepted();
  return 0;
}
