// SPDX-License-Identifier: Apache-2.0
// Parking spots along the curb lanes of local and main sections, clear of crosswalks, hydrants,
// junctions and entrances by the configured distances.
#include <tbb/parallel_for.h>

#include <cmath>

#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kEntranceMarginM = 1.0;  // Entrance boxes projected to the curb, widened.
constexpr double kSlideStepM = 0.5;       // A rejected spot slides on by this much.

// The curb vehicle lane of the section on `side` (+1 left of the centre line), or kNoLane.
roads::LaneId curb_lane(const roads::Output& roads, std::size_t section, int side,
                        const std::vector<roads::LaneId>& lanes) {
  const roads::Section& sec = roads.sections[section];
  for (roads::LaneId id : lanes) {
    const roads::Lane& lane = roads.lanes.lanes[id];
    if (lane.lane_index != 0 || lane.points.empty()) continue;
    const Vec3& m = lane.points[lane.points.size() / 2];
    const Vec2 p{m.x, m.y};
    // Which side of the centre line the lane's middle lies on.
    double best = 1e18;
    double sgn = 0.0;
    for (std::size_t k = 0; k + 1 < sec.centre.size(); ++k) {
      const double d = segment_distance(sec.centre[k], sec.centre[k + 1], p);
      if (d < best) {
        best = d;
        sgn = cross(sec.centre[k + 1] - sec.centre[k], p - sec.centre[k]);
      }
    }
    if ((sgn > 0.0 ? 1 : -1) == side) return id;
  }
  return roads::kNoLane;
}

void section_spots(const Inputs& in, const Config& config, const Areas& areas,
                   const std::vector<Vec2>& hydrants, const SpatialHash& hydrant_hash,
                   const std::vector<roads::LaneId>& lanes, std::size_t i,
                   std::vector<ParkingSpot>& out) {
  const roads::Section& sec = in.roads.sections[i];
  const layout::RoadEdge& edge = in.city.network.edges[sec.edge];
  if (edge.road_class == layout::RoadClass::artery || sec.centre.size() < 2) return;
  const double length = polyline_length(sec.centre);
  const double len = config.parking_spot_m;
  const double clear_max =
      std::max(config.parking_clear_crosswalk_m, config.parking_clear_intersection_m);
  std::vector<std::uint32_t> near;
  for (int side : {-1, 1}) {
    const roads::LaneId lane = curb_lane(in.roads, i, side, lanes);
    if (lane == roads::kNoLane) continue;
    const bool forward = in.roads.lanes.lanes[lane].forward;
    for (double s0 = 0.0; s0 + len <= length;) {
      const CurbFrame f = curb_frame(sec.centre, side, edge.width_m * 0.5, s0 + len * 0.5,
                                     -kParkingSpotWidthM * 0.5);
      ParkingSpot spot;
      const Vec2 dir = forward ? f.tangent : -f.tangent;
      spot.position = {static_cast<float>(f.p.x), static_cast<float>(f.p.y),
                       static_cast<float>(in.ground.sample(f.p))};
      spot.yaw_rad = static_cast<float>(std::atan2(dir.y, dir.x));
      spot.length_m = static_cast<float>(len);
      spot.edge = sec.edge;
      spot.lane = lane;
      const Ring ring = parking_spot_ring(spot);
      bool ok =
          areas.distance(ring, kAreaCrosswalk, clear_max) >= config.parking_clear_crosswalk_m &&
          areas.distance(ring, kAreaJunction, clear_max) >= config.parking_clear_intersection_m &&
          !areas.entrance_in_front(f.p, f.tangent, -f.to_road, len * 0.5, kEntranceMarginM,
                                   kParkingSpotWidthM,
                                   kParkingSpotWidthM + edge.sidewalk_width_m + 3.0);
      if (ok) {
        hydrant_hash.query_radius(f.p, len + config.parking_clear_hydrant_m, near);
        for (std::uint32_t h : near) {
          Polygon poly;
          poly.outer = ring;
          if (point_polygon_distance(poly, hydrants[h]) < config.parking_clear_hydrant_m)
            ok = false;
        }
      }
      if (!ok) {
        s0 += kSlideStepM;
        continue;
      }
      out.push_back(spot);
      s0 += len;
    }
  }
}

}  // namespace

std::vector<ParkingSpot> parking_spots(const Inputs& in, const Config& config,
                                       const std::vector<Item>& placed) {
  const Areas areas(in, config);
  // 1. Hydrants already placed.
  const std::int32_t hydrant = find_prop("hydrant");
  std::vector<Vec2> hydrants;
  SpatialHash hydrant_hash(16.0);
  for (const Item& item : placed) {
    if (hydrant < 0 || item.prop != static_cast<std::uint32_t>(hydrant)) continue;
    const Vec2 p{item.position[0], item.position[1]};
    hydrant_hash.insert(static_cast<std::uint32_t>(hydrants.size()), p);
    hydrants.push_back(p);
  }
  // 2. Vehicle lanes by section (ascending ids).
  const std::size_t ns = in.roads.sections.size();
  std::vector<std::vector<roads::LaneId>> by_section(ns);
  for (const roads::Lane& lane : in.roads.lanes.lanes) {
    if ((lane.tags & roads::kVehicle) == 0U || (lane.tags & roads::kIntersection) != 0U) continue;
    if (lane.section < 0 || static_cast<std::size_t>(lane.section) >= ns) continue;
    by_section[static_cast<std::size_t>(lane.section)].push_back(lane.id);
  }
  // 3. Sections as independent jobs, concatenated in section order.
  std::vector<std::vector<ParkingSpot>> slots(ns);
  tbb::parallel_for(std::size_t{0}, ns, [&](std::size_t i) {
    section_spots(in, config, areas, hydrants, hydrant_hash, by_section[i], i, slots[i]);
  });
  std::vector<ParkingSpot> out;
  for (const auto& slot : slots)
    out.insert(out.end(), slot.begin(), slot.end());
  return out;
}

}  // namespace cityforge::dressing::detail
