// SPDX-License-Identifier: Apache-2.0
// Private helpers of build_network (network.cpp, network_tags.cpp, network_clip.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm::detail {

/// What one highway way becomes, from its class defaults and its tags.
struct WayAttributes {
  int highway = -1;  ///< Index into highway_table() (construction keeps its own index).
  bool vehicles = true;
  bool reversed = false;  ///< oneway=-1: the way's nodes are walked backwards.
  bool area = false;      ///< A closed area=yes way (pedestrian square): not a line.
  /// The edge template: class, width, lanes (forward along the travel direction), sidewalk,
  /// speed, lit, layer (effective: bridges without a layer are 1, tunnels -1), bridge, tunnel,
  /// turn lanes, highway (+1) and osm_way. Points and nodes are not set.
  layout::RoadEdge edge;
};

/// Class defaults overridden by the way's tags (see network.cpp's header for the rules).
/// highway < 0 when the highway value is not a class of highway_table().
WayAttributes way_attributes(const Way& way);

/// One piece of a polyline inside a box.
struct ClippedPiece {
  std::vector<Vec2> points;
  std::vector<std::int64_t> ids;  ///< OSM node per point, 0 where the piece meets the box.
  bool starts_at_first = false;   ///< Starts at the input's first point.
  bool ends_at_last = false;      ///< Ends at the input's last point.
};
/// The parts of the polyline inside `box` (closed), in order; pieces shorter than 1 mm dropped.
std::vector<ClippedPiece> clip_to_box(const std::vector<Vec2>& points,
                                      const std::vector<std::int64_t>& ids, const Aabb2& box);

}  // namespace cityforge::osm::detail
