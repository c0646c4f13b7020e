// SPDX-License-Identifier: Apache-2.0
// The freeway part of the OpenDRIVE map (opendrive_freeway.cpp): decks and ramps as roads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "export/detail/xml_text.hpp"

namespace cityforge::exporter::detail {

/// Where a lane sits in the map: road id and OpenDRIVE lane id (road -1: nowhere).
struct OdrLaneRef {
  std::int64_t road = -1;
  int id = 0;
};

/// A connection the freeway adds to a street junction (a ramp, or the freeway between a
/// ramp's diverge and the merge of the same interchange).
struct OdrConnection {
  std::size_t incoming = 0;
  std::size_t connecting = 0;
  std::vector<std::pair<int, int>> lane_links;  ///< (incoming lane id, connecting lane id)
};

/// A junction's `<connection id=id>` (contact point start) with its lane links.
inline void write_connection(XmlText& x, std::size_t id, const OdrConnection& c) {
  x.raw("    <connection");
  x.attr("id", std::to_string(id));
  x.attr("incomingRoad", std::to_string(c.incoming));
  x.attr("connectingRoad", std::to_string(c.connecting));
  x.attr("contactPoint", "start");
  x.raw(">\n");
  for (const auto& [from, to] : c.lane_links) {
    x.raw("      <laneLink");
    x.attr_int("from", from);
    x.attr_int("to", to);
    x.raw("/>\n");
  }
  x.raw("    </connection>\n");
}

/// A lane's `<link>` to its predecessor and successor lanes (nothing when it has neither).
inline void write_lane_link(XmlText& x, OdrLaneRef pred, OdrLaneRef succ) {
  if (pred.road < 0 && succ.road < 0) return;
  x.raw("            <link>");
  if (pred.road >= 0) {
    x.raw("<predecessor");
    x.attr_int("id", pred.id);
    x.raw("/>");
  }
  if (succ.road >= 0) {
    x.raw("<successor");
    x.attr_int("id", succ.id);
    x.raw("/>");
  }
  x.raw("</link>\n");
}

/// The freeway roads, ready to be spliced into the map.
struct FreewayMap {
  std::string roads_xml;      ///< <road> elements, in road id order.
  std::string junctions_xml;  ///< The turnaround junctions at the deck ends.
  /// Street junction (layout node) -> the connections its ramps add, in road order.
  std::map<std::uint32_t, std::vector<OdrConnection>> at_node;
  /// Our lane id -> its place, for every freeway and ramp lane, in lane id order.
  std::vector<std::pair<roads::LaneId, OdrLaneRef>> lanes;
  std::size_t roads = 0;
  std::size_t connecting_roads = 0;
  std::size_t junctions = 0;
  std::size_t geometries = 0;
  std::size_t elevations = 0;
  double north = -1e300, south = 1e300, east = -1e300, west = 1e300;  ///< Reference lines.
  std::optional<Error> error;  ///< A non-finite number (names the road).
};

/// The freeway of `freeway` (decks cut into pieces at ramp diverges and merges, ramps, the
/// turnarounds at the deck ends) as OpenDRIVE roads numbered from `first_road`:
/// - one road (type motorway) per piece of one direction, its lanes -1 (the median side, our
///   lane_index n - 1) to -n (the curb), its reference line the innermost lane's centre line
///   (laneOffset = half a lane); elevation from the lanes' z (the deck top), flat across;
/// - a piece that starts at a diverge (the freeway between an interchange's off-ramp and its
///   on-ramp), both ramps (one lane -1, offRamp / onRamp) and nothing else join the junction of
///   the street node where the ramps meet the artery: they are its connecting roads, so each
///   road end belongs to one junction (OpenDRIVE 1.4 has no direct junctions);
/// - each turnaround is a connecting road of its own junction, ids from `first_junction`.
/// `street_ref` places the street lanes (the ramps' artery lanes).
FreewayMap freeway_map(const freeway::Output& freeway, const layout::Output& city,
                       const roads::Output& roads, const std::vector<OdrLaneRef>& street_ref,
                       std::size_t first_road, std::size_t first_junction);

}  // namespace cityforge::exporter::detail
