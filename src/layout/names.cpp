// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>

#include "cityforge/core/grid_sample.hpp"
#include "cityforge/layout/layout.hpp"

namespace cityforge::layout {

const char* to_string(RoadClass c) {
  switch (c) {
    case RoadClass::artery:
      return "artery";
    case RoadClass::main:
      return "main";
    case RoadClass::local:
      return "local";
  }
  return "?";
}

const char* to_string(ZoneKind k) {
  switch (k) {
    case ZoneKind::downtown:
      return "downtown";
    case ZoneKind::commercial:
      return "commercial";
    case ZoneKind::residential:
      return "residential";
    case ZoneKind::industrial:
      return "industrial";
    case ZoneKind::park:
      return "park";
  }
  return "?";
}

double Field::sample(Vec2 p) const { return bilinear_sample(values, nx, ny, origin, cell_m, p); }

std::array<double, kRoadClassCount> road_length_by_class(const RoadNetwork& net) {
  std::array<double, kRoadClassCount> out{};
  for (const RoadEdge& e : net.edges) {
    out[static_cast<std::size_t>(e.road_class)] += e.length_m;
  }
  return out;
}

}  // namespace cityforge::layout
