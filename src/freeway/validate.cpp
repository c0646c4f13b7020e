// SPDX-License-Identifier: Apache-2.0
// Checks on built centre lines: the deck underside clears the ground (more over roads), and no
// two decks overlap in plan except where they meet at a shared end (an interchange).
#include <algorithm>
#include <cstdio>

#include "cityforge/core/polyline.hpp"
#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {
namespace {

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

Status check_clearance(const FreewayCurve& curve, std::size_t index, const CentreLine& c,
                       const layout::Output& city, const terrain::Heightfield& ground,
                       const Config& config) {
  // 1. Roads whose bounds come near the deck.
  Aabb2 box;
  for (Vec2 p : c.line.xy)
    box.add(p);
  std::vector<const layout::RoadEdge*> near;
  for (const layout::RoadEdge& e : city.network.edges) {
    Aabb2 eb;
    for (Vec2 p : e.points)
      eb.add(p);
    const double pad = c.half_width_m + e.width_m / 2.0 + e.sidewalk_width_m;
    eb.min -= Vec2{pad, pad};
    eb.max += Vec2{pad, pad};
    if (eb.overlaps(box)) near.push_back(&e);
  }
  // 2. Each sample: highest ground under the cross-section against the required gap.
  for (std::size_t k = 0; k < c.line.xy.size(); ++k) {
    const Vec2 p = c.line.xy[k];
    const Vec2 t = tangent_at(c.line, c.line.s[k]);
    const Vec2 side = perp(t) * c.half_width_m;
    const double g = std::max({ground.sample(p), ground.sample(p + side), ground.sample(p - side)});
    const double gap = c.line.z[k] - config.deck_thickness_m - g;
    const layout::RoadEdge* road = nullptr;
    for (const layout::RoadEdge* e : near) {
      if (polyline_distance(e->points, p) <
          c.half_width_m + e->width_m / 2.0 + e->sidewalk_width_m) {
        road = e;
        break;
      }
    }
    const double need = road != nullptr ? config.road_clearance_m : config.min_ground_gap_m;
    if (gap < need) {
      const std::string what =
          road != nullptr ? "over road edge " + std::to_string(road->id) : "over the ground";
      return Error::invalid_input(where(index, c.source_point[k]),
                                  "freeway '" + curve.name + "': deck underside is " + fixed2(gap) +
                                      " m " + what + " at (" + fixed2(p.x) + ", " + fixed2(p.y) +
                                      "), needs >= " + fixed2(need) +
                                      " m; raise the height above ground of this point");
    }
  }
  return Ok{};
}

Status check_overlaps(const std::vector<FreewayCurve>& curves,
                      const std::vector<CentreLine>& centres) {
  for (std::size_t a = 0; a < centres.size(); ++a) {
    for (std::size_t b = a + 1; b < centres.size(); ++b) {
      const CentreLine& ca = centres[a];
      const CentreLine& cb = centres[b];
      const double need = ca.half_width_m + cb.half_width_m;
      // Shared ends (within 1 m) may touch: decks merge there.
      std::vector<Vec2> shared;
      for (Vec2 ea : {ca.line.xy.front(), ca.line.xy.back()}) {
        for (Vec2 eb : {cb.line.xy.front(), cb.line.xy.back()}) {
          if (distance(ea, eb) <= 1.0) shared.push_back(ea);
        }
      }
      Aabb2 bb;
      for (Vec2 p : cb.line.xy)
        bb.add(p);
      bb.min -= Vec2{need, need};
      bb.max += Vec2{need, need};
      for (std::size_t k = 0; k < ca.line.xy.size(); ++k) {
        const Vec2 p = ca.line.xy[k];
        if (!bb.contains(p)) continue;
        const double d = polyline_distance(cb.line.xy, p);
        if (d >= need) continue;
        const bool at_shared = std::any_of(shared.begin(), shared.end(),
                                           [&](Vec2 e) { return distance(e, p) < 4.0 * need; });
        if (at_shared) continue;
        return Error::invalid_input(
            where(a, ca.source_point[k]),
            "freeway '" + curves[a].name + "' overlaps freeway '" + curves[b].name +
                "' (freeways[" + std::to_string(b) + "]) in plan at (" + fixed2(p.x) + ", " +
                fixed2(p.y) + "): centre lines " + fixed2(d) + " m apart, decks need " +
                fixed2(need) + " m; freeways may only meet at a shared end point");
      }
    }
  }
  return Ok{};
}

}  // namespace cityforge::freeway::detail
