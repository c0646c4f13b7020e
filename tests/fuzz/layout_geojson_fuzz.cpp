// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the building footprints the crowd reads from layout.geojson
// (parse_building_footprints: local and WGS84 coordinates). Driver: fuzz_driver.hpp.
#include <cmath>
#include <string_view>

#include "cityforge/crowd/walk_network.hpp"
#include "fuzz_main.hpp"

namespace cityforge::fuzz {
const Target& fuzz_target() {
  static const Target t{"layout_geojson",
                        {"tests/fuzz/corpus/layout_geojson"},
                        {R"({"type":"FeatureCollection","cityforge":{"coordinates":"wgs84",)"
                         R"("origin":{"lon_deg":1.5,"lat_deg":42.5}},"features":[{"type":)"
                         R"("Feature","properties":{"layer":"building"},"geometry":{"type":)"
                         R"("MultiPolygon","coordinates":[[[[1.5,42.5],[1.5001,42.5],)"
                         R"([1.5001,42.5001],[1.5,42.5]]]]}}]})"},
                        json_tokens({"Polygon", "MultiPolygon", "building", "wgs84"}),
                        20000};
  return t;
}
}  // namespace cityforge::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cityforge;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<std::vector<crowd::Footprint>> f = crowd::parse_building_footprints(text, "fuzz.json");
  if (!f) {
    fuzz::check_error(f.error(), "fuzz.json");
    return 0;
  }
  for (const auto& rings : *f)
    for (const auto& ring : rings)
      for (const Vec2& p : ring)
        if (!std::isfinite(p.x) || !std::isfinite(p.y))
          fuzz::broken("a non-finite footprint point");
  fuzz::accepted();
  return 0;
}
