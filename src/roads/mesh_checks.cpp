// SPDX-License-Identifier: Apache-2.0
// What the road and block meshes read, checked before anything is meshed: a NaN would spread
// through the triangulations and the terrain cuts.
#include <cmath>
#include <string>

#include "cityforge/roads/meshes.hpp"
#include "roads/detail/drape.hpp"

namespace cityforge::roads {
namespace {

Status check_ring(const Ring& ring, const std::string& where) {
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 p = ring[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
      return Error::invalid_input(where + "[" + std::to_string(i) + "]",
                                  "expected a finite coordinate, got (" + std::to_string(p.x) +
                                      ", " + std::to_string(p.y) + ")");
    }
  }
  return Ok{};
}

}  // namespace

Status check_finite(const Polygon& area, const std::string& where) {
  if (Status s = check_ring(area.outer, where + ".outer"); !s) return s;
  for (std::size_t h = 0; h < area.holes.size(); ++h) {
    if (Status s = check_ring(area.holes[h], where + ".holes[" + std::to_string(h) + "]"); !s) {
      return s;
    }
  }
  return Ok{};
}

namespace detail {

Status check_mesh_inputs(const layout::Output& city, const terrain::Heightfield& ground,
                         const Config& config) {
  if (!std::isfinite(config.block_raise_m) || !std::isfinite(config.road_raise_m)) {
    return Error::invalid_input("roads", "block_raise_m and road_raise_m must be finite");
  }
  if (Status s = terrain::validate(ground); !s) return s;
  const auto& edges = city.network.edges;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const std::string where = "network.edges[" + std::to_string(e) + "]";
    if (!std::isfinite(edges[e].width_m) || edges[e].width_m < 0.0) {
      return Error::invalid_input(where + ".width_m",
                                  "expected >= 0, got " + std::to_string(edges[e].width_m));
    }
    if (Status s = check_ring(edges[e].points, where + ".points"); !s) return s;
  }
  for (std::size_t b = 0; b < city.blocks.size(); ++b) {
    const std::string where = "blocks[" + std::to_string(b) + "]";
    if (!std::isfinite(city.blocks[b].target_height_m)) {
      return Error::invalid_input(where + ".target_height_m", "expected a finite height");
    }
    if (Status s = check_finite(city.blocks[b].area, where + ".area"); !s) return s;
  }
  return Ok{};
}

}  // namespace detail
}  // namespace cityforge::roads
