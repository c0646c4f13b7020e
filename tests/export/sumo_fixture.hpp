// SPDX-License-Identifier: Apache-2.0
// A hand-made T junction and readers of SUMO plain XML lines, for the SUMO writer tests (unit and
// city).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::exporter::sumo_test {

using layout::RoadClass;

inline layout::RoadEdge road(layout::EdgeId id, layout::NodeId from, layout::NodeId to, RoadClass c,
                             Polyline points, int lanes, double width_m, double speed_kmh) {
  layout::RoadEdge e;
  e.id = id;
  e.from = from;
  e.to = to;
  e.road_class = c;
  e.points = std::move(points);
  e.lanes_per_direction = lanes;
  e.width_m = width_m;
  e.speed_limit_kmh = speed_kmh;
  e.length_m = polyline_length(e.points);
  return e;
}

/// A T junction at n1: an artery from n0 bending into n1, a main road on to n3 and a local
/// street north to the dead end n2.
inline layout::Output t_junction() {
  layout::Output city;
  city.network.nodes = {
      {0, {0, 0}, {0}}, {1, {100, 0}, {0, 1, 2}}, {2, {100, 80}, {1}}, {3, {250, 0}, {2}}};
  city.network.edges = {
      road(0, 0, 1, RoadClass::artery, {{0, 0}, {50, 5.5}, {100, 0}}, 3, 21.0, 60.0),
      road(1, 1, 2, RoadClass::local, {{100, 0}, {100, 80}}, 1, 9.0, 40.0),
      road(2, 1, 3, RoadClass::main, {{100, 0}, {175, 0}, {175, 0}, {250, 0}}, 2, 14.0, 50.0),
  };
  return city;
}

/// A ~1 x 1 km city with two crossing arteries on `ground`, as the layout tests build it.
inline layout::Output crossing_arteries_city(const terrain::Heightfield& ground) {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}};
  in.arteries.push_back({"east-west", {{10, 480}, {500, 540}, {990, 500}}});
  in.arteries.push_back({"north-south", {{520, 10}, {470, 500}, {530, 990}}});
  layout::Zone res;
  res.area.outer = in.boundary.outer;
  in.zones = {res};
  auto out = layout::run(in, ground, layout::Config{}, 7);
  EXPECT_TRUE(out.ok()) << out.error().to_string();
  return std::move(out).value();
}

/// The node_control overload; a braced list alone would also match the roads::Output one.
inline Result<SumoFiles> plain_xml(const layout::Output& city,
                                   const std::vector<std::uint8_t>& control) {
  return sumo_plain_xml(city, control);
}

/// The line of `xml` holding `id="<id>"`, or "" if there is none.
inline std::string line_with_id(const std::string& xml, const std::string& id) {
  const std::size_t at = xml.find("id=\"" + id + "\"");
  if (at == std::string::npos) {
    return "";
  }
  const std::size_t begin = xml.rfind('\n', at) + 1;
  return xml.substr(begin, xml.find('\n', at) - begin);
}

/// The value of attribute `name` in one XML element line, or "<none>".
inline std::string attribute(const std::string& line, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t at = line.find(key);
  if (at == std::string::npos) {
    return "<none>";
  }
  const std::size_t begin = at + key.size();
  return line.substr(begin, line.find('"', begin) - begin);
}

inline std::vector<std::string> split_spaces(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string token; in >> token;) {
    out.push_back(token);
  }
  return out;
}

}  // namespace cityforge::exporter::sumo_test
