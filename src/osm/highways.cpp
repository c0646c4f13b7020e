// SPDX-License-Identifier: Apache-2.0
// The OSM highway classes the import understands and their defaults (tags override them, see
// network.cpp). seeds/004 (3.5.8) lists 14 classes with rough widths: primary, motorway and
// trunk "about 6 m, two lanes, no sidewalks, not lit"; secondary and tertiary "4 to 5 m";
// residential and living streets lit with sidewalks on both sides; raceways over 6 m; footways
// and cycleways at most 2 m; construction about 5 m. Its widths are narrow for the lane graph
// (3 m per lane at least), so the carriageways below are typical European / US urban widths,
// the dissertation's choices kept where they fit (sidewalks, lighting, paths).
//
// | highway        | class  | vehicles | width m | lanes/dir | oneway | sidewalk m | lit | km/h |
// |----------------|--------|----------|---------|-----------|--------|------------|-----|------|
// | motorway       | artery | yes      | 7.5     | 2         | yes    | 0          | no  | 110  |
// | motorway_link  | artery | yes      | 4.0     | 1         | yes    | 0          | no  | 60   |
// | trunk          | artery | yes      | 14.0    | 2         | no     | 0          | no  | 90   |
// | trunk_link     | artery | yes      | 7.0     | 1         | no     | 0          | no  | 50   |
// | primary        | artery | yes      | 12.0    | 2         | no     | 3.0        | yes | 50   |
// | primary_link   | artery | yes      | 7.0     | 1         | no     | 0          | yes | 40   |
// | secondary      | main   | yes      | 10.0    | 1         | no     | 2.5        | yes | 50   |
// | secondary_link | main   | yes      | 6.5     | 1         | no     | 0          | yes | 40   |
// | tertiary       | main   | yes      | 8.0     | 1         | no     | 2.5        | yes | 50   |
// | tertiary_link  | main   | yes      | 6.5     | 1         | no     | 0          | yes | 40   |
// | unclassified   | local  | yes      | 6.5     | 1         | no     | 2.0        | no  | 50   |
// | residential    | local  | yes      | 7.0     | 1         | no     | 2.5        | yes | 40   |
// | living_street  | local  | yes      | 5.5     | 1         | no     | 2.0        | yes | 10   |
// | service        | local  | yes      | 4.5     | 1         | no     | 0          | no  | 20   |
// | track          | local  | yes      | 3.0     | 1         | no     | 0          | no  | 20   |
// | road           | local  | yes      | 6.0     | 1         | no     | 0          | no  | 40   |
// | busway         | local  | yes      | 7.0     | 1         | no     | 0          | yes | 50   |
// | raceway        | local  | yes      | 10.0    | 1         | no     | 0          | no  | 100  |
// | construction   | local  | yes      | 5.0     | 1         | no     | 0          | no  | 20   |
// | pedestrian     | local  | path     | 5.0     | 1         | no     | 0          | yes | 5    |
// | footway        | local  | path     | 2.0     | 1         | no     | 0          | no  | 5    |
// | steps          | local  | path     | 2.0     | 1         | no     | 0          | no  | 3    |
// | path           | local  | path     | 1.5     | 1         | no     | 0          | no  | 5    |
// | cycleway       | local  | path     | 2.0     | 1         | no     | 0          | no  | 20   |
// | bridleway      | local  | path     | 2.5     | 1         | no     | 0          | no  | 10   |
//
// width is the carriageway curb to curb: both directions for two-way classes, the one
// carriageway for motorways (mapped as two one-way ways). highway=construction uses the
// defaults of construction=<class> when that names a class here.
#include <algorithm>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {

namespace {

using layout::RoadClass;

std::vector<HighwaySpec> make_table() {
  constexpr RoadClass A = RoadClass::artery;
  constexpr RoadClass M = RoadClass::main;
  constexpr RoadClass L = RoadClass::local;
  // name, class, vehicles, width, lanes, oneway, sidewalk, lit, speed
  return {
      {"motorway", A, true, 7.5, 2, true, 0.0, false, 110.0},
      {"motorway_link", A, true, 4.0, 1, true, 0.0, false, 60.0},
      {"trunk", A, true, 14.0, 2, false, 0.0, false, 90.0},
      {"trunk_link", A, true, 7.0, 1, false, 0.0, false, 50.0},
      {"primary", A, true, 12.0, 2, false, 3.0, true, 50.0},
      {"primary_link", A, true, 7.0, 1, false, 0.0, true, 40.0},
      {"secondary", M, true, 10.0, 1, false, 2.5, true, 50.0},
      {"secondary_link", M, true, 6.5, 1, false, 0.0, true, 40.0},
      {"tertiary", M, true, 8.0, 1, false, 2.5, true, 50.0},
      {"tertiary_link", M, true, 6.5, 1, false, 0.0, true, 40.0},
      {"unclassified", L, true, 6.5, 1, false, 2.0, false, 50.0},
      {"residential", L, true, 7.0, 1, false, 2.5, true, 40.0},
      {"living_street", L, true, 5.5, 1, false, 2.0, true, 10.0},
      {"service", L, true, 4.5, 1, false, 0.0, false, 20.0},
      {"track", L, true, 3.0, 1, false, 0.0, false, 20.0},
      {"road", L, true, 6.0, 1, false, 0.0, false, 40.0},
      {"busway", L, true, 7.0, 1, false, 0.0, true, 50.0},
      {"raceway", L, true, 10.0, 1, false, 0.0, false, 100.0},
      {"construction", L, true, 5.0, 1, false, 0.0, false, 20.0},
      {"pedestrian", L, false, 5.0, 1, false, 0.0, true, 5.0},
      {"footway", L, false, 2.0, 1, false, 0.0, false, 5.0},
      {"steps", L, false, 2.0, 1, false, 0.0, false, 3.0},
      {"path", L, false, 1.5, 1, false, 0.0, false, 5.0},
      {"cycleway", L, false, 2.0, 1, false, 0.0, false, 20.0},
      {"bridleway", L, false, 2.5, 1, false, 0.0, false, 10.0},
  };
}

}  // namespace

const std::vector<HighwaySpec>& highway_table() {
  static const std::vector<HighwaySpec> table = make_table();
  return table;
}

int find_highway(std::string_view name) {
  const auto& table = highway_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace cityforge::osm
