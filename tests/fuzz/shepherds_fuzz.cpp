// SPDX-License-Identifier: Apache-2.0
// Fuzz target for shepherds.json (parse_shepherds_json), read against the walk network of the
// tiny city whose lanes.json is the lanes_json target's seed. Driver: fuzz_driver.hpp.
#include <memory>
#include <string_view>

#include "cityforge/crowd/shepherd.hpp"
#include "cityforge/crowd/walk_network.hpp"
#include "cityforge/traffic/network.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"shepherds", {"tests/fuzz/corpus/shepherds"}, {}, json_tokens(), 20000};
  return t;
}
}  // namespace cityforge::fuzz

namespace {

struct City {
  cityforge::traffic::Network net;
  cityforge::crowd::WalkNetwork walk;
};

const City& city() {
  using namespace cityforge;
  static const std::unique_ptr<City> c = [] {
    const std::string text =
        fuzz::slurp(std::string(CITYFORGE_SOURCE_DIR) + "/tests/fuzz/corpus/lanes_json/lanes.json");
    Result<traffic::LanesFile> f = traffic::parse_lanes_json(text, "lanes.json");
    if (!f) fuzz::broken("the seed lanes.json does not read");
    Result<traffic::Network> net = traffic::build_network(f->graph, f->controls);
    if (!net) fuzz::broken("the seed lanes.json makes no network");
    auto out = std::make_unique<City>();
    out->net = std::move(*net);
    out->walk = crowd::build_walk_network(out->net);
    return out;
  }();
  return *c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<crowd::ShepherdsFile> f = crowd::parse_shepherds_json(text, "fuzz.json", city().walk);
  fuzz::check(f, "fuzz.json");
  return 0;
}
