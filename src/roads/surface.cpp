// SPDX-License-Identifier: Apache-2.0
// The road surface height: the draping rule of the carriageway and junction meshes
// (surface_mesh.cpp), so decals and other dressing can sit exactly on the road.
#include <algorithm>
#include <cmath>

#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::roads {
namespace {

// Same mitre limit as polyline_offset, so mitred points match the section outline.
constexpr double kMitreLimit = 4.0;

/// The mitred offset direction at vertex v of a deduplicated line, scaled so that offsetting
/// by lateral_m along it keeps lateral_m from both segments' lines (as polyline_offset does).
Vec2 mitre_at(const Polyline& line, std::size_t v) {
  if (v == 0) return perp(normalize(line[1] - line[0]));
  if (v + 1 == line.size()) return perp(normalize(line[v] - line[v - 1]));
  const Vec2 n0 = perp(normalize(line[v] - line[v - 1]));
  const Vec2 n1 = perp(normalize(line[v + 1] - line[v]));
  const Vec2 sum = n0 + n1;
  if (length(sum) < 1e-12) return n0;
  const Vec2 bisector = normalize(sum);
  return bisector * std::min(1.0 / dot(bisector, n0), kMitreLimit);
}

}  // namespace

double class_raise(const Config& config, layout::RoadClass c) {
  const auto k = static_cast<std::size_t>(c);
  return k < 3 ? config.class_raise_m[k] : 0.0;
}

double road_surface_raise(const Config& config, layout::RoadClass c) {
  return config.road_raise_m + class_raise(config, c);
}

layout::RoadClass junction_class(const Intersection& x, const layout::Output& city) {
  auto best = layout::RoadClass::local;
  for (const Leg& leg : x.legs) {
    best = std::min(best, city.network.edges[leg.edge].road_class);  // artery < main < local
  }
  return best;
}

Vec2 section_point(const Output& roads, std::uint32_t section, double lateral_m, double s_m) {
  const Polyline line = polyline_dedupe(roads.sections[section].centre);
  if (line.empty()) return {};
  if (line.size() == 1) return line.front();
  // The segment holding s, then the point between the two mitred offset vertices: the same
  // straight edges as the surface outline and the exporter's strips.
  double acc = 0.0;
  std::size_t seg = 0;
  for (; seg + 2 < line.size(); ++seg) {
    const double len = distance(line[seg], line[seg + 1]);
    if (s_m <= acc + len) break;
    acc += len;
  }
  const double len = distance(line[seg], line[seg + 1]);
  const double t = std::clamp((s_m - acc) / len, 0.0, 1.0);
  const Vec2 a = line[seg] + mitre_at(line, seg) * lateral_m;
  const Vec2 b = line[seg + 1] + mitre_at(line, seg + 1) * lateral_m;
  return a + (b - a) * t;
}

double road_surface_z(const layout::Output& city, const Output& roads,
                      const terrain::Heightfield& ground, const Config& config,
                      std::uint32_t section, double lateral_m, double s_m) {
  const layout::RoadEdge& edge = city.network.edges[roads.sections[section].edge];
  const Vec2 p = section_point(roads, section, lateral_m, s_m);
  const double half = 0.5 * edge.width_m;
  const double crown =
      half > 0.0 ? config.crown_m * std::max(0.0, 1.0 - std::abs(lateral_m) / half) : 0.0;
  return ground.sample(p) + road_surface_raise(config, edge.road_class) + crown;
}

double junction_surface_z(const layout::Output& city, const Output& roads,
                          const terrain::Heightfield& ground, const Config& config,
                          std::uint32_t intersection, Vec2 p) {
  return ground.sample(p) +
         road_surface_raise(config, junction_class(roads.intersections[intersection], city));
}

}  // namespace cityforge::roads
