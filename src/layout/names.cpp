// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>

#include "cityforge/layout/layout.hpp"

namespace cityforge::layout {

const char* to_string(RoadClass c) {
  switch (c) {
    case RoadClass::artery: return "artery";
    case RoadClass::main: return "main";
    case RoadClass::local: return "local";
  }
  return "?";
}

const char* to_string(ZoneKind k) {
  switch (k) {
    case ZoneKind::downtown: return "downtown";
    case ZoneKind::commercial: return "commercial";
    case ZoneKind::residential: return "residential";
    case ZoneKind::industrial: return "industrial";
    case ZoneKind::park: return "park";
  }
  return "?";
}

double Field::sample(Vec2 p) const {
  if (nx == 0 || ny == 0) {
    return 0.0;
  }
  if (nx < 2 || ny < 2) {
    return values[0];
  }
  const double gx = std::clamp((p.x - origin.x) / cell_m, 0.0, static_cast<double>(nx - 1));
  const double gy = std::clamp((p.y - origin.y) / cell_m, 0.0, static_cast<double>(ny - 1));
  const auto i = std::min(static_cast<std::uint32_t>(gx), nx - 2);
  const auto j = std::min(static_cast<std::uint32_t>(gy), ny - 2);
  const double u = gx - i;
  const double v = gy - j;
  auto at = [&](std::uint32_t a, std::uint32_t b) { return values[std::size_t{b} * nx + a]; };
  const double h0 = at(i, j) + u * (at(i + 1, j) - at(i, j));
  const double h1 = at(i, j + 1) + u * (at(i + 1, j + 1) - at(i, j + 1));
  return h0 + v * (h1 - h0);
}

std::array<double, kRoadClassCount> road_length_by_class(const RoadNetwork& net) {
  std::array<double, kRoadClassCount> out{};
  for (const RoadEdge& e : net.edges) {
    out[static_cast<std::size_t>(e.road_class)] += e.length_m;
  }
  return out;
}

}  // namespace cityforge::layout
