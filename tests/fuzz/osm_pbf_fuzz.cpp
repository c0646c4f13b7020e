// SPDX-License-Identifier: Apache-2.0
// Fuzz target for OSM PBF extracts (osm::read_pbf: libosmium's decoder, then our areas,
// projection and checks). Driver and modes: fuzz_driver.hpp.
#include <string_view>

#include "cityforge/osm/osm.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"osm_pbf",
                        {"tests/data/osm/manhattan_west_village.osm.pbf"},
                        {},
                        {"OSMHeader", "OSMData", std::string(4, '\0'),
                         std::string("\x00\x00\x00\x0d", 4), std::string("\x78\x9c", 2)},
                        300};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view pbf(reinterpret_cast<const char*>(data), size);
  Result<osm::Extract> ex = osm::read_pbf(pbf, "fuzz.osm.pbf");
  fuzz::check(ex, "fuzz.osm.pbf");
  return 0;
}
