// SPDX-License-Identifier: Apache-2.0
// lanes.json: the lane graph, junctions and signal plans (schema in docs/lanes.md). One lane
// per line, %.9g numbers, fixed key order: byte identical for identical inputs.
#include <string>
#include <vector>

#include "cityforge/core/json_text.hpp"
#include "cityforge/export/export.hpp"

namespace cityforge::exporter {
namespace {

const char* turn_name(roads::Turn t) {
  switch (t) {
    case roads::Turn::none:
      return "none";
    case roads::Turn::through:
      return "through";
    case roads::Turn::right:
      return "right";
    case roads::Turn::left:
      return "left";
    case roads::Turn::u_turn:
      return "u_turn";
  }
  return "none";
}

void tags(JsonText& j, std::uint32_t t) {
  static constexpr std::pair<std::uint32_t, const char*> kNames[] = {
      {roads::kVehicle, "vehicle"},     {roads::kSidewalk, "sidewalk"},
      {roads::kCrosswalk, "crosswalk"}, {roads::kIntersection, "intersection"},
      {roads::kFreeway, "freeway"},     {roads::kRamp, "ramp"},
      {roads::kParking, "parking"},     {roads::kYield, "yield"}};
  j.raw("[");
  bool first = true;
  for (const auto& [bit, name] : kNames) {
    if ((t & bit) == 0) continue;
    if (!first) j.raw(",");
    j.string(name);
    first = false;
  }
  j.raw("]");
}

void ids(JsonText& j, const std::vector<roads::LaneId>& v) {
  j.raw("[");
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) j.raw(",");
    j.integer(v[i]);
  }
  j.raw("]");
}

void lane(JsonText& j, const roads::Lane& l) {
  const std::string where = "lanes[" + std::to_string(l.id) + "]";
  j.raw("{");
  j.key("id", true);
  j.integer(l.id);
  j.key("tags");
  tags(j, l.tags);
  j.key("width_m");
  j.number(l.width_m, where + ".width_m");
  j.key("length_m");
  j.number(l.length_m, where + ".length_m");
  j.key("speed_limit_mps");
  j.number(l.speed_limit_mps, where + ".speed_limit_mps");
  j.key("section");
  j.integer(l.section);
  j.key("intersection");
  j.integer(l.intersection);
  j.key("lane_index");
  j.integer(l.lane_index);
  j.key("forward");
  j.raw(l.forward ? "true" : "false");
  j.key("turn");
  j.string(turn_name(l.turn));
  j.key("traffic_density");
  j.number(l.traffic_density, where + ".traffic_density");
  j.key("pedestrian_density");
  j.number(l.pedestrian_density, where + ".pedestrian_density");
  // Lane changes: the same-direction lanes beside this one (null at the edge).
  j.key("left_neighbour");
  if (l.left_neighbour == roads::kNoLane)
    j.raw("null");
  else
    j.integer(l.left_neighbour);
  j.key("right_neighbour");
  if (l.right_neighbour == roads::kNoLane)
    j.raw("null");
  else
    j.integer(l.right_neighbour);
  j.key("successors");
  ids(j, l.successors);
  j.key("predecessors");
  ids(j, l.predecessors);
  j.key("points");
  j.raw("[");
  for (std::size_t i = 0; i < l.points.size(); ++i) {
    const std::string wp = where + ".points[" + std::to_string(i) + "]";
    if (i > 0) j.raw(",");
    j.raw("[");
    j.number(l.points[i].x, wp);
    j.raw(",");
    j.number(l.points[i].y, wp);
    j.raw(",");
    j.number(l.points[i].z, wp);
    j.raw("]");
  }
  j.raw("]}");
}

void intersection(JsonText& j, const roads::Intersection& x, std::size_t index,
                  const layout::Output& city) {
  const std::string where = "intersections[" + std::to_string(index) + "]";
  j.raw("{");
  j.key("id", true);
  j.integer(static_cast<long long>(index));
  j.key("node");
  j.integer(x.node);
  j.key("position");
  j.point(city.network.nodes[x.node].pos, where + ".position");
  j.key("control");
  j.string(roads::to_string(x.control));
  j.key("legs");
  j.raw("[");
  for (std::size_t k = 0; k < x.legs.size(); ++k) {
    const roads::Leg& leg = x.legs[k];
    if (k > 0) j.raw(",");
    j.raw("{");
    j.key("edge", true);
    j.integer(leg.edge);
    j.key("at_edge_start");
    j.raw(leg.at_edge_start ? "true" : "false");
    j.key("trim_m");
    j.number(leg.trim_m, where + ".legs[" + std::to_string(k) + "].trim_m");
    j.raw("}");
  }
  j.raw("]}");
}

void signal(JsonText& j, const roads::SignalPlan& s, std::size_t index) {
  const std::string where = "signals[" + std::to_string(index) + "]";
  j.raw("{");
  j.key("intersection", true);
  j.integer(s.intersection);
  j.key("offset_s");
  j.number(s.offset_s, where + ".offset_s");
  j.key("cycle_s");
  j.number(s.cycle_s(), where + ".cycle_s");
  j.key("phases");
  j.raw("[");
  for (std::size_t p = 0; p < s.phases.size(); ++p) {
    const roads::Phase& ph = s.phases[p];
    const std::string wp = where + ".phases[" + std::to_string(p) + "]";
    if (p > 0) j.raw(",");
    j.raw("{");
    j.key("green_s", true);
    j.number(ph.green_s, wp + ".green_s");
    j.key("yellow_s");
    j.number(ph.yellow_s, wp + ".yellow_s");
    j.key("all_red_s");
    j.number(ph.all_red_s, wp + ".all_red_s");
    j.key("green");
    ids(j, ph.green);
    j.key("walk");
    ids(j, ph.walk);
    j.raw("}");
  }
  j.raw("]}");
}

/// Writes the file to `j`, spilling it as it goes when `j` has a sink.
Status write_lanes(JsonText& j, const roads::Output& roads, const layout::Output& city) {
  j.raw("{");
  j.key("format", true);
  j.string("cityforge-lanes");
  j.key("version");
  j.integer(1);
  j.key("units");
  j.string("m, m/s, s; x east, y north, z up");
  j.key("lanes");
  j.raw("[\n");
  for (std::size_t i = 0; i < roads.lanes.lanes.size(); ++i) {
    if (i > 0) j.raw(",\n");
    lane(j, roads.lanes.lanes[i]);
    j.spill();
  }
  j.raw("\n]");
  j.key("intersections");
  j.raw("[\n");
  for (std::size_t i = 0; i < roads.intersections.size(); ++i) {
    if (i > 0) j.raw(",\n");
    intersection(j, roads.intersections[i], i, city);
    j.spill();
  }
  j.raw("\n]");
  j.key("signals");
  j.raw("[\n");
  for (std::size_t i = 0; i < roads.lanes.signals.size(); ++i) {
    if (i > 0) j.raw(",\n");
    signal(j, roads.lanes.signals[i], i);
    j.spill();
  }
  j.raw("\n]}\n");
  j.spill(true);
  if (j.error()) return *j.error();
  return Ok{};
}

}  // namespace

Result<std::string> lanes_json(const roads::Output& roads, const layout::Output& city) {
  JsonText j;
  if (Status s = write_lanes(j, roads, city); !s) return s.error();
  return std::move(j.str());
}

Status lanes_json(const ByteSink& sink, const roads::Output& roads, const layout::Output& city) {
  JsonText j(&sink);
  return write_lanes(j, roads, city);
}

}  // namespace cityforge::exporter
